import { describe, expect, it } from "vitest";
import {
  createBuiltinEngine,
  type KnowledgeEntry,
  knowledgeLanguage,
} from "../src/modules/bot/engine-builtin.ts";
import { analyserOf, detectLanguage } from "../src/modules/bot/languages.ts";
import { clinic } from "./fixtures/clinic.ts";

/** A campsite's FAQ: three topics, each in English, Spanish, French, German and Portuguese (0-2, 3-5, ...). */
const campsite: KnowledgeEntry[] = [
  {
    question: "Do you have parking?",
    answer: "Yes, there is free parking for one car next to every pitch.",
  },
  {
    question: "Is there Wi-Fi on the campsite?",
    answer: "Free Wi-Fi covers the reception and the bar; the password is on your receipt.",
  },
  {
    question: "Are dogs allowed?",
    answer: "Dogs are welcome on a lead, for 3 euros a night. They are not allowed in the pool area.",
  },
  {
    question: "¿Tienen aparcamiento?",
    answer: "Sí, hay aparcamiento gratuito para un coche junto a cada parcela.",
  },
  {
    question: "¿Hay wifi en el camping?",
    answer: "El wifi gratuito llega a la recepción y al bar; la contraseña está en su recibo.",
  },
  {
    question: "¿Se admiten perros?",
    answer:
      "Los perros son bienvenidos con correa, por 3 euros la noche. No pueden entrar en la zona de la piscina.",
  },
  {
    question: "Avez-vous un parking ?",
    answer: "Oui, un parking gratuit pour une voiture se trouve à côté de chaque emplacement.",
  },
  {
    question: "Y a-t-il le wifi au camping ?",
    answer: "Le wifi gratuit couvre l'accueil et le bar ; le mot de passe est sur votre reçu.",
  },
  {
    question: "Les chiens sont-ils acceptés ?",
    answer:
      "Les chiens sont les bienvenus en laisse, pour 3 euros par nuit. Ils ne sont pas admis autour de la piscine.",
  },
  {
    question: "Gibt es Parkplätze?",
    answer: "Ja, neben jedem Stellplatz gibt es einen kostenlosen Parkplatz für ein Auto.",
  },
  {
    question: "Gibt es WLAN auf dem Campingplatz?",
    answer:
      "Kostenloses WLAN gibt es an der Rezeption und in der Bar; das Passwort steht auf Ihrer Quittung.",
  },
  {
    question: "Sind Hunde erlaubt?",
    answer:
      "Hunde sind an der Leine willkommen, für 3 Euro pro Nacht. Im Poolbereich sind sie nicht erlaubt.",
  },
  {
    question: "Têm estacionamento?",
    answer: "Sim, há estacionamento gratuito para um carro ao lado de cada lugar.",
  },
  {
    question: "Há Wi-Fi no parque de campismo?",
    answer: "O Wi-Fi gratuito cobre a receção e o bar; a palavra-passe está no seu recibo.",
  },
  {
    question: "Aceitam cães?",
    answer: "Os cães são bem-vindos com trela, por 3 euros por noite. Não podem entrar na zona da piscina.",
  },
];
const LANGUAGE_BLOCKS = ["en", "es", "fr", "de", "pt"];

describe("builtin bot engine: languages", () => {
  it("detects each entry's language once, when the engine is built", () => {
    const engine = createBuiltinEngine(campsite);
    expect(engine.entryLanguages).toEqual(campsite.map((_, i) => LANGUAGE_BLOCKS[Math.floor(i / 3)]));
  });

  it("answers a Spanish, French, German or Portuguese question with the entry in its language", () => {
    const engine = createBuiltinEngine(campsite);
    // "parking", "wifi" and the price are in several languages' entries: the message's language decides.
    const cases: [string, number, string][] = [
      ["¿Hay aparcamiento para el coche?", 3, "es"],
      ["¿Cuál es la contraseña del wifi, por favor?", 4, "es"],
      ["¿Pueden venir los perros?", 5, "es"],
      ["Est-ce qu'il y a un parking pour la voiture ?", 6, "fr"],
      ["Quel est le mot de passe du wifi ?", 7, "fr"],
      ["Est-ce que les chiens sont acceptés ?", 8, "fr"],
      ["Wo kann ich mein Auto parken?", 9, "de"],
      ["Wie ist das Passwort für das WLAN?", 10, "de"],
      ["Sind Hunde bei euch erlaubt?", 11, "de"],
      ["Há estacionamento para o carro?", 12, "pt"],
      ["Qual é a palavra-passe do wifi?", 13, "pt"],
      ["Os cães são bem-vindos?", 14, "pt"],
    ];
    for (const [message, entryIndex, language] of cases) {
      expect(engine.languageOf(message), message).toBe(language);
      expect(engine.match(message)?.entryIndex, message).toBe(entryIndex);
      const decision = engine.decide(message);
      expect(decision.kind, message).toBe("answer");
      if (decision.kind === "answer") expect(decision.match.answer).toBe(campsite[entryIndex]!.answer);
    }
    // The passages for an LLM prompt are in the message's language too ("gratuito" is in two Spanish
    // answers; "parking" and "wifi" in several languages' entries).
    const spanish = campsite.slice(3, 6).map((e) => e.question);
    const top = engine.top("¿El aparcamiento es gratuito? ¿Y el wifi?", 5);
    expect(top.length).toBeGreaterThan(1);
    for (const passage of top) expect(spanish).toContain(passage.question);
  });

  it("lets every entry compete when the knowledge has nothing in the message's language", () => {
    const englishAndSpanish = campsite.slice(0, 6);
    const engine = createBuiltinEngine(englishAndSpanish);
    // French, and Italian (not analysed): no entry in the language, so all of them compete.
    const french = "Est-ce qu'il y a le wifi gratuit dans le camping ?";
    const italian = "Il wifi è gratuito nel campeggio? Qual è la password?";
    expect(engine.languageOf(french)).toBeNull();
    expect(engine.languageOf(italian)).toBeNull();
    expect([1, 4]).toContain(engine.closest(french)?.entryIndex);
    expect([1, 4]).toContain(engine.closest(italian)?.entryIndex);
    // The same message with the French entries present gets the French entry.
    expect(createBuiltinEngine(campsite).closest(french)?.entryIndex).toBe(7);
  });

  it("leaves English knowledge as it was: one language, no detection per message, the same answers", () => {
    const engine = createBuiltinEngine(clinic);
    expect(engine.entryLanguages).toEqual(["en", "en", "en", "en", "en", "en"]);
    expect(engine.languageOf("¿Tienen aparcamiento?")).toBeNull();
    // Figures of the engine before languages (its English analyser: synonyms, stop words, Porter).
    expect(engine.closest("Hi! What time do you open on Saturday?")).toMatchObject({
      entryIndex: 0,
      score: 1,
    });
    expect(engine.closest("how much is a check up?")).toMatchObject({ entryIndex: 1, score: 1 });
    expect(engine.closest("Is there somewhere to park near the clinic?")?.entryIndex).toBe(2);
    expect(engine.closest("Is there somewhere to park near the clinic?")?.score).toBeCloseTo(0.61296, 4);
    expect(engine.closest("can I make an appointment online")).toMatchObject({ entryIndex: 3, score: 1 });
    expect(engine.closest("do you see kids?")).toMatchObject({ entryIndex: 4, score: 1 });
    expect(engine.match("Who won the football last night?")).toBeNull();
  });

  it("falls back sensibly on very short messages: the knowledge's words, else its majority language", () => {
    // Two English topics, one Spanish: English is the majority.
    const engine = createBuiltinEngine([campsite[0]!, campsite[1]!, campsite[3]!]);
    expect(engine.entryLanguages).toEqual(["en", "en", "es"]);
    // One or two words: the detector is unsure, the words the knowledge has in one language decide.
    expect(engine.languageOf("¿aparcamiento?")).toBe("es");
    expect(engine.match("¿aparcamiento?")?.entryIndex).toBe(2);
    expect(engine.languageOf("wifi password")).toBe("en");
    // Nothing to go on ("hi", a word in no entry): the majority language.
    expect(engine.languageOf("hi")).toBe("en");
    expect(engine.languageOf("ok")).toBe("en");
    expect(engine.languageOf("?")).toBe("en");
    // A word both languages have ("parking" is in the English entry, and gratuito/aparcamiento are not
    // parking): still the majority, never a crash or an empty answer.
    expect(engine.languageOf("parking?")).toBe("en");
    expect(engine.match("parking?")?.entryIndex).toBe(0);
    // A short greeting in a language the knowledge has decides by its stop words.
    const spanishMajority = createBuiltinEngine([campsite[0]!, campsite[3]!, campsite[4]!]);
    expect(spanishMajority.languageOf("hola, gracias")).toBe("es");
    expect(spanishMajority.languageOf("hi")).toBe("en"); // an English greeting, English's stop word
    expect(spanishMajority.languageOf("?")).toBe("es");
    expect(spanishMajority.languageOf("👍")).toBe("es");
  });

  it("gives a short entry the knowledge's majority language", () => {
    expect(knowledgeLanguage("Parking")).toBeNull();
    expect(knowledgeLanguage("Wi-Fi: 24/7")).toBeNull();
    const engine = createBuiltinEngine([
      ...campsite.slice(3, 6),
      { question: "Wi-Fi", answer: "Wi-Fi 6, 500 Mb/s." },
      { text: "Piscina: 10-20 h." },
    ]);
    expect(engine.entryLanguages).toEqual(["es", "es", "es", "es", "es"]);
  });

  it("is deterministic: the same knowledge and message give the same answer", () => {
    const a = createBuiltinEngine(campsite);
    const b = createBuiltinEngine(campsite);
    for (const message of ["¿wifi?", "parking", "Hunde?", "Quel est le prix ?", "hola"]) {
      expect(a.decide(message)).toEqual(b.decide(message));
      expect(a.decide(message)).toEqual(a.decide(message));
    }
  });

  it("analyses each language with its own stemmer, stop words and spelling", () => {
    const words = (language: "es" | "fr" | "de" | "pt", text: string) => {
      const analyser = analyserOf(language);
      return analyser.contentWords(text).map((w) => analyser.termOf(w));
    };
    // Accents optional, one stem for singular and plural.
    expect(words("es", "¿Habitación? habitacion")).toEqual(["habitacion", "habitacion"]);
    expect(words("es", "los perros y un perro")).toEqual(["perr", "perr"]);
    // French elisions split off: l'aéroport is aéroport.
    expect(words("fr", "Comment venir de l'aéroport ?")).toEqual(["aeroport"]);
    // German umlauts dotted, dropped or written out read the same; ß is ss.
    expect(words("de", "Frühstück")).toEqual(words("de", "Fruehstueck"));
    expect(words("de", "Frühstück")).toEqual(words("de", "Fruhstuck"));
    expect(words("de", "Straße")).toEqual(words("de", "Strasse"));
    // Times and numbers are not content words.
    expect(words("pt", "das 15h às 22h30")).toEqual([]);
    expect(detectLanguage("Dürfen wir unseren Hund mitbringen?").language).toBe("de");
  });
});
