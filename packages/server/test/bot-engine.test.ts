import { describe, expect, it } from "vitest";
import {
  createBuiltinEngine,
  DEFAULT_THRESHOLD,
  type KnowledgeEntry,
  topPassages,
} from "../src/modules/bot/engine-builtin.ts";
import { clinic } from "./fixtures/clinic.ts";

describe("builtin bot engine: match", () => {
  it("answers a paraphrased question with the right entry", () => {
    const engine = createBuiltinEngine(clinic);
    const match = engine.match("Hi! What time do you open on Saturday?");
    expect(match).not.toBeNull();
    expect(match!.entryIndex).toBe(0);
    expect(match!.answer).toBe(clinic[0]!.answer);
    expect(match!.score).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    expect(match!.score).toBeLessThanOrEqual(1);

    expect(engine.match("how much is a check up?")?.entryIndex).toBe(1);
    expect(engine.match("Is there somewhere to park near the clinic?")?.entryIndex).toBe(2);
    expect(engine.match("can I make an appointment online")?.entryIndex).toBe(3);
    expect(engine.match("do you see kids?")?.entryIndex).toBe(4);
  });

  it("returns null (fallback) for an unrelated message", () => {
    const engine = createBuiltinEngine(clinic);
    expect(engine.match("Who won the football last night?")).toBeNull();
    expect(engine.match("Do you sell second-hand cars?")).toBeNull();
    expect(engine.match("Can you recommend a good pizza place?")).toBeNull();
  });

  it("returns null for an empty knowledge base, an empty message or a message of stop words", () => {
    expect(createBuiltinEngine([]).match("What are your opening hours?")).toBeNull();
    expect(createBuiltinEngine([{}, { question: "Only a question" }]).match("only a question")).toBeNull();
    const engine = createBuiltinEngine(clinic);
    expect(engine.match("")).toBeNull();
    expect(engine.match("   ?!  ")).toBeNull();
    expect(engine.match("hi, thanks, could you please?")).toBeNull();
  });

  it("tolerates typos", () => {
    const engine = createBuiltinEngine(clinic);
    expect(engine.match("wat are ur opneing hours")?.entryIndex).toBe(0);
    expect(engine.match("is there parkng at the clinc?")?.entryIndex).toBe(2);
    expect(engine.match("how do i bok an apointment")?.entryIndex).toBe(3);
    expect(engine.match("what to do in a dental emergncy")?.entryIndex).toBe(5);
  });

  it("ignores accents, case and punctuation", () => {
    const engine = createBuiltinEngine(clinic);
    expect(engine.match("PARKING???")?.entryIndex).toBe(2);
    expect(engine.match("Pârkïng at the clínic")?.entryIndex).toBe(2);
  });

  it("answers free-text entries with their best-matching sentence", () => {
    const knowledge: KnowledgeEntry[] = [
      {
        text:
          "Welcome to Green Leaf Cafe.\n" +
          "Opening hours:\nEvery day from 7:30 to 17:00.\n" +
          "We have vegan and gluten-free cakes. Dogs are welcome on the terrace. " +
          "Free wifi is available for customers.",
      },
      { question: "Can I book a table?", answer: "We do not take reservations; just walk in." },
    ];
    const engine = createBuiltinEngine(knowledge);

    const dogs = engine.match("Can I bring my dog?");
    expect(dogs).toEqual({
      answer: "Dogs are welcome on the terrace.",
      score: expect.any(Number),
      entryIndex: 0,
    });

    const hours = engine.match("when do you open?");
    expect(hours?.entryIndex).toBe(0);
    expect(hours?.answer).toBe("Opening hours: Every day from 7:30 to 17:00.");

    expect(engine.match("do you have gluten free cake")?.answer).toBe("We have vegan and gluten-free cakes.");
    expect(engine.match("can I reserve a table for four?")?.entryIndex).toBe(1);
  });

  it("is deterministic: same answer and score every time, for engines built separately too", () => {
    const messages = [
      "opening hours?",
      "how much does it cost",
      "book",
      "parking for disabled drivers",
      "emergency",
      "random unrelated words here",
    ];
    const first = createBuiltinEngine(clinic);
    const second = createBuiltinEngine(structuredClone(clinic));
    const run = (engine: ReturnType<typeof createBuiltinEngine>) => messages.map((m) => engine.match(m));
    const expected = run(first);
    for (let i = 0; i < 3; i++) {
      expect(run(first)).toEqual(expected);
      expect(run(second)).toEqual(expected);
    }
  });

  it("breaks exact ties by knowledge order", () => {
    const twins: KnowledgeEntry[] = [
      { question: "Parking?", answer: "First answer." },
      { question: "Parking?", answer: "First answer." },
    ];
    expect(createBuiltinEngine(twins).match("parking")?.entryIndex).toBe(0);
  });

  it("applies the threshold option to the normalised score", () => {
    const message = "Is there parking for my bicycle?"; // "bicycle" is not in the knowledge
    const lenient = createBuiltinEngine(clinic, { threshold: 0.1 }).match(message);
    expect(lenient?.entryIndex).toBe(2);
    expect(lenient!.score).toBeGreaterThan(0.1);
    expect(lenient!.score).toBeLessThan(1);
    expect(createBuiltinEngine(clinic, { threshold: lenient!.score + 0.01 }).match(message)).toBeNull();
    expect(createBuiltinEngine(clinic, { threshold: lenient!.score }).match(message)?.entryIndex).toBe(2);
    // a full match scores 1 and passes even the strictest threshold
    expect(createBuiltinEngine(clinic, { threshold: 1 }).match("parking")?.score).toBe(1);
  });

  it("keeps its decisions when the knowledge base grows (normalised, not raw BM25, threshold)", () => {
    const filler: KnowledgeEntry[] = Array.from({ length: 300 }, (_, i) => ({
      question: `What about service plan number ${i} option ${String.fromCharCode(97 + (i % 26))}?`,
      answer: `Plan ${i} covers item ${i * 7} and extra ${i % 13}; ask reception for the leaflet.`,
    }));
    const small = createBuiltinEngine(clinic);
    const large = createBuiltinEngine([...clinic, ...filler]);
    for (const message of ["What time do you open on Saturday?", "do you see kids?", "parking?"]) {
      expect(large.match(message)?.entryIndex).toBe(small.match(message)?.entryIndex);
      expect(large.match(message)).not.toBeNull();
    }
    expect(large.match("Who won the football last night?")).toBeNull();
  });

  it("does not trip over words that are Object.prototype keys", () => {
    const engine = createBuiltinEngine([{ question: "constructor toString __proto__", answer: "odd" }]);
    expect(engine.match("__proto__ constructor toString?")?.answer).toBe("odd");
    expect(engine.match("valueOf hasOwnProperty isPrototypeOf")).toBeNull();
  });

  it("builds a 40-entry knowledge base in well under 50 ms and matches in well under 5 ms", () => {
    const topics = ["hours", "parking", "prices", "booking", "refunds", "delivery", "payment", "warranty"];
    const entries: KnowledgeEntry[] = Array.from({ length: 40 }, (_, i) => ({
      question: `What is your policy on ${topics[i % topics.length]} for case ${i}?`,
      answer: `For ${topics[i % topics.length]} in case ${i} we offer a friendly service with clear rules and fair prices, explained by our staff in the shop or on the phone.`,
    }));
    createBuiltinEngine(entries).match("warm up");
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const builds: number[] = [];
    const matches: number[] = [];
    for (let i = 0; i < 7; i++) {
      let start = performance.now();
      const engine = createBuiltinEngine(entries);
      builds.push(performance.now() - start);
      start = performance.now();
      engine.match("How do refunds work? I paid by card and want my money back");
      matches.push(performance.now() - start);
    }
    expect(median(builds)).toBeLessThan(40); // budget 50 ms; typically 2-5 ms, more on a busy CI machine
    expect(median(matches)).toBeLessThan(4); // budget 5 ms; typically 0.1 ms
  });
});

describe("builtin bot engine: alternative phrasings", () => {
  // Other ways customers ask: the emergency entry learns words its question and answer never use.
  const withAlternatives: KnowledgeEntry[] = clinic.map((entry, i) =>
    i === 5
      ? {
          ...entry,
          alternatives: [
            "I have a terrible toothache",
            "My filling fell out, can you see me?",
            "I chipped a tooth",
          ],
        }
      : i === 2
        ? // parking phrasings that mention the words of other entries (appointment, check-up)
          {
            ...entry,
            alternatives: [
              "Where do I leave the car for my appointment?",
              "Can I park outside when I come for a check-up?",
            ],
          }
        : entry,
  );

  it("an alternative phrasing matches its entry, with the entry's answer", () => {
    const plain = createBuiltinEngine(clinic);
    const engine = createBuiltinEngine(withAlternatives);
    for (const message of ["toothache!!", "I chipped my tooth", "my filling fell out"]) {
      expect(plain.match(message), message).toBeNull();
      const match = engine.match(message);
      expect(match, message).toEqual({ answer: clinic[5]!.answer, score: expect.any(Number), entryIndex: 5 });
      expect(match!.score).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
      expect(match!.score).toBeLessThanOrEqual(1);
    }
    expect(plain.match("where do I leave my car?")).toBeNull();
    expect(engine.match("where do I leave my car?")?.entryIndex).toBe(2);
  });

  it("alternatives of one entry do not steal messages clearly about another entry", () => {
    const plain = createBuiltinEngine(clinic);
    const engine = createBuiltinEngine(withAlternatives);
    for (const [message, entryIndex] of [
      ["How do I book an appointment?", 3],
      ["can I make an appointment online", 3],
      ["how much is a check up?", 1],
      ["what time do you open on Saturday?", 0],
      ["do you see kids?", 4],
    ] as const) {
      expect(plain.match(message)?.entryIndex, message).toBe(entryIndex);
      expect(engine.match(message)?.entryIndex, message).toBe(entryIndex);
    }
    // and unrelated messages still go to the fallback
    expect(engine.match("Who won the football last night?")).toBeNull();
    expect(engine.match("Can you recommend a good pizza place?")).toBeNull();
  });

  it("with alternatives, words found only in an entry's answer count half: they alone do not answer", () => {
    const plain = createBuiltinEngine(clinic);
    const engine = createBuiltinEngine(withAlternatives);
    // "disabled" and "building" are only in the parking answer, "toilets" nowhere: not a parking question
    const answerWordsOnly = "Are there disabled toilets in the building?";
    expect(engine.match(answerWordsOnly)).toBeNull();
    const scored = createBuiltinEngine(withAlternatives, { threshold: 0 }).match(answerWordsOnly);
    expect(scored?.entryIndex).toBe(2);
    expect(scored!.score).toBeLessThan(0.4);
    // Without alternatives the stored question is all there is, so the answer's words keep full weight.
    expect(plain.match(answerWordsOnly)?.entryIndex).toBe(2);
    // A message that also meets a phrasing word ("park", "car") still gets the parking answer.
    for (const message of ["Do you have disabled parking?", "can I leave my car behind the building?"]) {
      expect(engine.match(message)?.entryIndex, message).toBe(2);
    }
  });

  it("an entry's alternatives do not make the words of its answer look common", () => {
    // Ten phrasings that all say "parking": scoring per phrasing would count "parking" ten times and
    // lower its weight; per entry, the confidence of a parking question stays the same.
    const many = clinic.map((entry, i) =>
      i === 2
        ? { ...entry, alternatives: Array.from({ length: 10 }, (_, j) => `parking question ${j}`) }
        : entry,
    );
    const message = "Is there parking for my bicycle?";
    const before = createBuiltinEngine(clinic, { threshold: 0 }).match(message);
    expect(before?.entryIndex).toBe(2);
    expect(before!.score).toBeLessThan(1);
    expect(createBuiltinEngine(many, { threshold: 0 }).match(message)).toEqual(before);
  });

  it("no or empty alternatives change nothing, and damaged stored values are ignored", () => {
    const messages = ["opening hours?", "how much does it cost", "parking", "emergency", "football"];
    const expected = messages.map((m) => createBuiltinEngine(clinic).match(m));
    const empty = clinic.map((entry) => ({ ...entry, alternatives: [] }));
    expect(messages.map((m) => createBuiltinEngine(empty).match(m))).toEqual(expected);
    // a copy of the stored question is no second phrasing: the answer's words keep full weight
    const copies = clinic.map((entry) => ({ ...entry, alternatives: [` ${entry.question!.toUpperCase()}`] }));
    expect(messages.map((m) => createBuiltinEngine(copies).match(m))).toEqual(expected);
    expect(createBuiltinEngine(copies).match("Are there disabled toilets in the building?")?.entryIndex).toBe(
      2,
    );
    const damaged = clinic.map((entry) => ({ ...entry, alternatives: "not a list" as unknown as string[] }));
    expect(messages.map((m) => createBuiltinEngine(damaged).match(m))).toEqual(expected);
    const mixed = [
      { ...clinic[0]!, alternatives: [42, null, "  ", "When do you shut?"] as unknown as string[] },
      ...clinic.slice(1),
    ];
    expect(createBuiltinEngine(mixed).match("when do you shut")?.entryIndex).toBe(0);
  });

  it("builds 45 entries with 5 alternatives each in well under 50 ms", () => {
    const topics = [
      "hours",
      "parking",
      "prices",
      "booking",
      "refunds",
      "delivery",
      "payment",
      "warranty",
      "hire",
    ];
    const entries: KnowledgeEntry[] = Array.from({ length: 45 }, (_, i) => {
      const topic = topics[i % topics.length];
      return {
        question: `What is your policy on ${topic} for case ${i}?`,
        answer: `For ${topic} in case ${i} we offer a friendly service with clear rules and fair prices, explained by our staff in the shop or on the phone.`,
        alternatives: [
          `How does ${topic} work for number ${i}?`,
          `Can you tell me about ${topic} option ${i}?`,
          `I have a question on ${topic}, case ${i}`,
          `What are the rules for ${topic} ${i}?`,
          `Is ${topic} ${i} included?`,
        ],
      };
    });
    createBuiltinEngine(entries).match("warm up");
    const builds: number[] = [];
    for (let i = 0; i < 7; i++) {
      const start = performance.now();
      createBuiltinEngine(entries).match("How do refunds work for case 4?");
      builds.push(performance.now() - start);
    }
    // typically 2-5 ms; the budget leaves room for a busy CI machine
    expect(builds.sort((a, b) => a - b)[3]).toBeLessThan(40);
    expect(createBuiltinEngine(entries).match("how does refunds work for number 4")?.entryIndex).toBe(4);
  });
});

describe("builtin bot engine: topPassages", () => {
  it("returns the most relevant entries first, up to the limit", () => {
    const passages = topPassages(clinic, "How much does it cost to book a check-up?", 2);
    expect(passages).toHaveLength(2);
    expect(passages[0]).toEqual(clinic[1]);
    expect(passages.every((p) => clinic.some((e) => e.answer === p.answer))).toBe(true);
  });

  it("returns free-text entries as their matching sentence", () => {
    const knowledge: KnowledgeEntry[] = [
      { text: "We are open every day. Parking is free behind the shop. Cards and cash accepted." },
      { question: "Do you deliver?", answer: "Yes, within 5 miles." },
    ];
    expect(topPassages(knowledge, "where do I park", 3)).toEqual([
      { text: "Parking is free behind the shop." },
    ]);
  });

  it("returns a question/answer entry once and whole, alternatives included, ranked by its best phrasing", () => {
    const knowledge: KnowledgeEntry[] = [
      { question: "Is there parking?", answer: "Yes, behind the shop." },
      {
        question: "What should I do in an emergency?",
        answer: "Call us first thing in the morning.",
        alternatives: ["I chipped a tooth", "My tooth is broken", "toothache"],
      },
    ];
    const passages = topPassages(knowledge, "I broke a tooth, is there parking?", 5);
    expect(passages).toHaveLength(2);
    expect(passages).toContainEqual(knowledge[1]);
    expect(passages).toContainEqual(knowledge[0]);
    expect(topPassages(knowledge, "chipped tooth", 5)).toEqual([knowledge[1]]);
  });

  it("returns nothing for a zero limit, an empty knowledge base or an unrelated message", () => {
    expect(topPassages(clinic, "parking", 0)).toEqual([]);
    expect(topPassages([], "parking", 3)).toEqual([]);
    expect(topPassages(clinic, "football results", 3)).toEqual([]);
  });
});
