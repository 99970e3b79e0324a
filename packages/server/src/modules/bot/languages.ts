/**
 * Languages of the builtin bot engine (issue 34): which language a text is in, and how to analyse
 * Spanish, French, German and Portuguese text. English keeps the engine's own analyser (Porter stemming,
 * its stop words, phrase and stem synonyms, irregular verbs), which stays in engine-builtin.ts.
 *
 * Detection: `tinyld` (its light build: 24 languages, a 70 KB module), restricted to the five languages
 * the engine analyses plus Italian and Dutch, the two neighbours most often confused with them (without
 * them an Italian message reads as Spanish or Portuguese). On short texts it is often unsure: see
 * `detectLanguage` and the engine, which then looks at the knowledge's own words.
 *
 * Analysis, the same for the knowledge and the message: lower case; French elisions split off (l'arrivée
 * -> arrivée); German umlauts and their two-letter spellings folded together (Frühstück, Fruehstueck and
 * Fruhstuck all read fruhstuck), ß -> ss; accents removed; tokens of letters and digits; greetings whose
 * words mean something else alone removed ("buenas noches", "guten Tag"); stop words (the categories of
 * the English list: function words, light verbs, greetings and filler, time words, hedges, family),
 * tokens with a digit (18h, 10h30) and 1-letter tokens dropped; Snowball stemming (`@orama/stemmers`).
 * No synonym lists: those are English only. The stop-word lists are short and written here: the
 * packages' lists mix function words with content words a customer asks about ("horas", "cerca",
 * "mejor" in one Spanish list; "ende", "zeit" in a German one) and differ in kind from one language to
 * the next.
 */

import { stemmer as frenchStemmer } from "@orama/stemmers/french";
import { stemmer as germanStemmer } from "@orama/stemmers/german";
import { stemmer as portugueseStemmer } from "@orama/stemmers/portuguese";
import { stemmer as spanishStemmer } from "@orama/stemmers/spanish";
import { detectAll } from "tinyld/light";

/** The languages the engine analyses. */
export const LANGUAGES = ["en", "es", "fr", "de", "pt"] as const;
export type Language = (typeof LANGUAGES)[number];

/** What the detector may answer: the analysed languages and two close neighbours it must tell apart. */
const DETECTABLE = [...LANGUAGES, "it", "nl"];

export type Detection = {
  /** An analysed language, or null for another language or no answer. */
  language: Language | null;
  /** tinyld's accuracy for its first answer: 1 when a word shape only that language has decided it. */
  accuracy: number;
  /** tinyld's accuracy for its second answer (0 when there is none). */
  runnerUp: number;
};

export function isLanguage(code: string): code is Language {
  return (LANGUAGES as readonly string[]).includes(code);
}

/** The detector's first answer among DETECTABLE (deterministic: tinyld has no randomness). */
export function detectLanguage(text: string): Detection {
  const [best, second] = detectAll(text, { only: DETECTABLE });
  if (!best) return { language: null, accuracy: 0, runnerUp: 0 };
  return {
    language: isLanguage(best.lang) ? best.lang : null,
    accuracy: best.accuracy,
    runnerUp: second?.accuracy ?? 0,
  };
}

// --- analysers (not English) -------------------------------------------------------------------

export interface Analyser {
  language: Language;
  /** Content words of a text (normalised; stop words, tokens with digits and 1-letter tokens dropped). */
  contentWords(text: string): string[];
  /** A content word's index term: its stem (and, in English, its synonym). */
  termOf(word: string): string;
  /** Whether a normalised token is one of the language's stop words. */
  isStopWord(token: string): boolean;
  /** The stop words (normalised). */
  stopWords: ReadonlySet<string>;
  /** Normalised tokens of a text, stop words included (evidence of the language of a short message). */
  tokens(text: string): string[];
  /** Stop words of 4+ letters: a message word that is a typo of one is dropped like the stop word. */
  longStopWords: readonly string[];
}

/** Accents off, lower case, punctuation to spaces; French elisions and German umlauts first. */
function normaliser(language: Language): (text: string) => string {
  return (text) => {
    let out = text.toLowerCase().replace(/[’`´]/g, "'");
    if (language === "fr") {
      // l'arrivée, d'annulation, qu'on, jusqu'à, aujourd'hui: the elided word is a stop word.
      out = out.replace(/\b(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu|quoiqu)'/g, " ");
    }
    if (language === "de") out = out.replace(/ß/g, "ss");
    if (/[^\p{ASCII}]/u.test(out)) out = out.normalize("NFKD").replace(/\p{M}+/gu, "");
    out = out.replace(/'/g, language === "fr" ? " " : "").replace(/[^\p{L}\p{N}]+/gu, " ");
    // Umlauts lost their dots above (Frühstück -> fruhstuck); written out (Fruehstueck) they read the same.
    if (language === "de") out = out.replace(/([aou])e/g, "$1");
    return out.replace(GREETINGS[language as Exclude<Language, "en">], " ");
  };
}

/**
 * Stop words, in the categories of the English list: function words; light verbs (take, make, come, go,
 * get, see, give, put, help, know, want); greetings, thanks and filler; time deictics (today, tomorrow,
 * now, later, next, last); hedges; the people a customer talks about (my wife, a friend).
 */
const STOP_WORDS: Record<Exclude<Language, "en">, string> = {
  es:
    "a al algo algun alguna algunas alguno algunos ante antes aqui asi aun bastante bien cada como con " +
    "contra cual cuales cualquier cuando cuanto cuanta cuantos cuantas de del desde durante e el ella " +
    "ellas ello ellos en entre era eres es esa esas ese eso esos esta estas este esto estos estoy estamos " +
    "estan estar fue ha haber habia han has hasta hay he hemos la las le les lo los mas me mi mis mucho " +
    "mucha muchos muchas muy nada ni no nos nosotros nosotras nuestra nuestro nuestras nuestros o os otra " +
    "otro otros otras para pero poco por porque puede pueden puedo puedes podemos podria podrian podrias " +
    "que quien se sea ser si sin sobre somos son soy su sus tambien te tengo tiene tienen tienes tenemos " +
    "tener ti tu tus un una uno unos unas usted ustedes vosotros y ya yo alli alla " +
    "hacer hago hace hacen ir voy va vamos van venir vengo viene vienen tomar partir conseguir obtener " +
    "ver veo mirar dar poner ayudar saber quiero queremos queria quisiera querria preguntar decir " +
    "hola gracias favor porfa saludos pregunta ok vale oiga disculpe perdon " +
    "hoy manana ahora ayer pronto luego despues proximo proxima ultimo ultima momento " +
    "realmente actualmente todavia quizas quiza posible normalmente generalmente cosa cosas bueno buen gran " +
    "mujer marido esposa esposo pareja novio novia amigo amiga amigos madre padre mama papa hermano hermana",
  fr:
    "a au aux avec ce ces cet cette ca cela ceci dans de des du elle elles en et eux il ils je la le les " +
    "leur leurs lui ma mais me meme mes moi mon ne nos notre nous on ou par pas pour qu que qui quoi sa se " +
    "ses son sur ta te tes toi ton tu un une vos votre vous y etre ete ai as avons avez ont avoir est es " +
    "sont suis sommes etes etait etaient peut peux pouvez pouvons puis comment quel quelle quels quelles " +
    "quand combien aussi tres plus bien tout tous toute toutes ici si depuis chez " +
    "faire fait fais font aller vais va allons allez vont venir viens vient venons venez viennent prendre " +
    "prends prend prenez partir obtenir voir regarder donner mettre aider savoir voudrais veux voulais " +
    "aimerais souhaite souhaiterais demander dire " +
    "bonjour bonsoir salut merci svp stp plait madame monsieur question ok " +
    "aujourd hui demain maintenant hier bientot prochain prochaine dernier derniere moment " +
    "vraiment actuellement encore deja possible normalement generalement chose choses bon bonne super " +
    "femme mari epouse epoux conjoint copain copine ami amie amis mere pere maman papa frere soeur",
  de:
    "aber alle allem allen aller alles als also am an auch auf aus bei beim bin bis bist da damit dann das " +
    "dass dein deine dem den der des dich die dies diese diesem diesen dieser dieses dir doch du durch ein " +
    "eine einem einen einer eines er es etwas euch euer eure fur gibt geben hab habe haben habt hat hatte " +
    "hier ich ihm ihn ihnen ihr ihre im in ist ja jetzt kann kannst konnen konnt konnte man mein meine " +
    "mich mir mit muss mussen nach nicht noch nur ob oder ohne sehr sein seine sich sie sind so uber um und " +
    "uns unser unsere vom von vor war waren was welche welcher welches wenn wer wie wir wird werden wann " +
    "zu zum zur darf durfen durft mocht mochte mochten wollen will wollte soll sollen ab ins unseren " +
    "unserem unserer unseres euren eurem ihren ihrem meinen meinem meiner " +
    "bekommen bekomme bekommt kriegen kommen komme kommt machen mache macht gehen geht nehmen nehme nimmt " +
    "nehmt sehen schauen helfen wissen fragen sagen " +
    "hallo hi hey danke bitte dank gruss grusse liebe lieber frage gerne mal ok " +
    "heute morgen morgens abend abends jetzt gestern bald spater nachste nachsten letzte letzten moment " +
    "wirklich aktuell schon vielleicht moglich eigentlich normalerweise sache sachen gut gute guten toll " +
    "super frau mann ehefrau ehemann partner partnerin freund freundin freunde mutter vater mama papa " +
    "bruder schwester",
  pt:
    "a ao aos as ate com como da das de do dos e ela elas ele eles em entre era essa esse essas esses esta " +
    "estas este estes estou estamos estao foi ha isso isto ja lhe mais mas me meu minha meus minhas muito " +
    "muita muitos muitas na nas nao no nos num numa o os ou para pela pelas pelo pelos por porque pode " +
    "podem posso podemos qual quais quando que quem se sem ser seu sua seus suas sao tambem tem temos tenho " +
    "ter teu tua tu um uma uns umas voce voces vos pra pro eu aqui ai la desde " +
    "ir vou vai vamos vao fazer faz fazem vir partir tomar conseguir obter ver olhar dar por ajudar saber " +
    "gostaria queria quero perguntar dizer " +
    "ola oi bom boa obrigado obrigada favor pergunta ok " +
    "hoje amanha agora ontem logo depois proximo proxima ultimo ultima momento " +
    "realmente atualmente ainda talvez possivel normalmente geralmente coisa coisas otimo " +
    "mulher marido esposa esposo parceiro parceira namorado namorada amigo amiga amigos mae pai irmao irma",
};

/** Greetings removed before tokenising: their words are content words elsewhere ("por noche", "pro Tag"). */
const GREETINGS: Record<Exclude<Language, "en">, RegExp> = {
  es: /\b(buen(os|as) (dias|tardes|noches)|buen dia)\b/g,
  fr: /\b(bonne (journee|soiree|nuit))\b/g,
  de: /\b(guten (tag|morgen|abend)|schonen tag|vielen dank)\b/g,
  pt: /\b(bom dia|boa (tarde|noite))\b/g,
};

const STEMMERS: Record<Exclude<Language, "en">, (word: string) => string> = {
  es: spanishStemmer,
  fr: frenchStemmer,
  de: germanStemmer,
  pt: portugueseStemmer,
};

function createAnalyser(language: Exclude<Language, "en">): Analyser {
  const normalise = normaliser(language);
  const stopWords = new Set(normalise(STOP_WORDS[language]).split(" ").filter(Boolean));
  const stem = STEMMERS[language];
  const tokens = (text: string) => normalise(text).split(" ").filter(Boolean);
  return {
    language,
    tokens,
    contentWords(text) {
      return tokens(text).filter((t) => t.length >= 2 && !stopWords.has(t) && !/\p{N}/u.test(t));
    },
    termOf: (word) => stem(word) || word,
    isStopWord: (token) => stopWords.has(token),
    stopWords,
    longStopWords: [...stopWords].filter((w) => w.length >= 4).sort(),
  };
}

const analysers = new Map<Language, Analyser>();

/** The analyser of a language other than English (built once, then shared). */
export function analyserOf(language: Exclude<Language, "en">): Analyser {
  let analyser = analysers.get(language);
  if (!analyser) {
    analyser = createAnalyser(language);
    analysers.set(language, analyser);
  }
  return analyser;
}
