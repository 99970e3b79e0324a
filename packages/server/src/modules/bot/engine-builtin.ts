/**
 * Offline "builtin" bot engine: answers a customer message from the campaign's knowledge base without
 * any LLM. Pure (no database, no I/O) and deterministic. Decisions: docs/decisions/bot.md (Builtin engine).
 *
 * Languages (issue 34; detection and the other languages' analysers in languages.ts): each entry's
 * language is detected once, when the engine is built (its stop words, else tinyld; an entry that cannot
 * be told takes the knowledge's majority language). Knowledge in one language is analysed in it and
 * nothing is detected per message: English knowledge is ranked exactly as before. Knowledge in several
 * languages gets one index per language; a message's language is detected (tinyld when it is sure, else
 * the language whose stop words and knowledge words the message has, else the majority language) and
 * only the entries in that language compete, so a Spanish question gets the Spanish answer. A message in
 * a language the knowledge lacks is ranked against every entry.
 *
 * English analyser, the same for the knowledge and the message: lower case, accents and apostrophes
 * stripped, generic phrase synonyms ("how much" -> price), tokens, irregular verbs to their base form
 * (bought -> buy), English + chit-chat stop words dropped, Porter stemming, generic word synonyms on the
 * stems. Spanish, French, German and Portuguese: their own stop words and Snowball stemmer, no synonyms.
 * Typo tolerance, on the message only: a word unknown to the knowledge is replaced by the knowledge word
 * it is a plausible typo of (Damerau-Levenshtein, same first letter), or dropped if it is a misspelt stop
 * word; message terms of 4+ letters also match as prefixes (safe ~ safety).
 *
 * Ranking: BM25 (MiniSearch; fields question x2, answer or sentence x1, surrounding free text x0.3).
 * A question/answer entry's stored question and each of its `alternatives` ("phrasings") are passages
 * of their own with the entry's answer; the entry ranks as its best phrasing, and the term weights of
 * the confidence count entries, not passages, so alternatives do not make an answer's words look common.
 * Accept/reject does NOT use the raw BM25 score, which grows with corpus size and message length; it
 * uses a normalised confidence in [0, 1]: the IDF-weighted share of the message's content terms that
 * the best passage contains (words unknown to the knowledge weigh the most). "Do you service cars?"
 * shares only "service" with the knowledge and falls below the threshold: fallback. In an entry with
 * alternatives, a term found only in the answer (in none of the phrasings) counts half.
 */
import MiniSearch from "minisearch";
import { stemmer } from "stemmer";
import { oneLine } from "../../platform/text.ts";
import {
  type Analyser,
  analyserOf,
  type Detection,
  detectLanguage,
  LANGUAGES,
  type Language,
} from "./languages.ts";

export type KnowledgeEntry = {
  question?: string;
  answer?: string;
  text?: string;
  /** Other ways customers ask the question (question/answer entries only): indexed like the question. */
  alternatives?: string[];
  /** A passage of a knowledge source (never in stored knowledge): the source it came from. */
  source?: { id: string; name: string };
};
export type BuiltinMatch = {
  answer: string;
  score: number;
  entryIndex: number;
  /** The answer came from a knowledge source's passage: which source, and the whole passage. */
  source?: { id: string; name: string; passage: string };
};
/** A "Did you mean" choice: an entry the message may be about, with what to call it. */
export type BuiltinChoice = BuiltinMatch & { title: string };
/**
 * What the bot does with a message: answer with the best entry; offer the few plausible entries as
 * choices when none is certain (or two are equally so); or fall back.
 */
export type BuiltinDecision =
  | { kind: "answer"; match: BuiltinMatch }
  | { kind: "choices"; choices: BuiltinChoice[] }
  | { kind: "fallback" };
export interface BuiltinEngine {
  /** Best answer for the message, or null when the confidence is below the threshold (=> fallback). */
  match(message: string): BuiltinMatch | null;
  /** match() with "Did you mean": choices where the best candidates are close and none is certain. */
  decide(message: string): BuiltinDecision;
  /** The entry's answer (a "Did you mean" pick), or null when the knowledge has no such entry. */
  answerOf(entryIndex: number): BuiltinMatch | null;
  /** The best candidate whatever its confidence (null when nothing shares a term): "closest entry". */
  closest(message: string): BuiltinMatch | null;
  /** topPassages over this engine's index (built once, not per message). */
  top(message: string, limit: number): KnowledgeEntry[];
  /**
   * The language whose entries answer the message: one the knowledge has entries in. null when every
   * entry competes: the knowledge is in one language, or has no entry in the message's language.
   */
  languageOf(message: string): Language | null;
  /** Each entry's language, detected once when the engine is built. */
  entryLanguages: readonly Language[];
}

/** Default minimum confidence (share of the message's weighted content terms found in the passage). */
export const DEFAULT_THRESHOLD = 0.5;
/** "Did you mean": how many entries at most, and the least confidence an entry needs to be offered. */
export const MAX_CHOICES = 3;
export const CHOICE_FLOOR = 0.45;
/**
 * Two entries whose confidences are this close at the top are a tie: the bot asks which one rather
 * than guessing, unless the first one's BM25 score is clearly ahead.
 */
export const TIE_MARGIN = 0.05;
export const TIE_BM25_RATIO = 1.25;

/**
 * Weight of a message term = FLOOR + (1 - FLOOR) * idf / maxIdf. The floor keeps words that occur in
 * every entry (tiny knowledge bases, "bike" in a bike shop) from counting as nothing, while rare words
 * and words unknown to the knowledge (maxIdf) weigh up to twice as much.
 */
const WEIGHT_FLOOR = 0.5;
/** A term that matched only after typo correction, or only as a prefix ("safe" ~ "safety"), counts 80 %. */
const INEXACT_MATCH_CREDIT = 0.8;
/** Prefix matching applies to message terms of at least this many letters. */
const MIN_PREFIX_LENGTH = 4;
/** Field boosts for BM25 ranking: the stored question says what the entry is about. */
const FIELD_BOOST = { question: 2, body: 1, context: 0.3 };
/**
 * In an entry with alternatives, a message term found only in its answer (in none of its phrasings)
 * counts for the confidence as the answer counts for the ranking: half a phrasing term. The phrasings
 * say what customers ask about; an answer also mentions details (an hour, a passport, the canal) that
 * off-topic messages share by chance. Without alternatives the answer keeps full credit: the stored
 * question alone is too short to describe its topic (halving there costs about 9 points of accuracy).
 */
const ANSWER_ONLY_CREDIT = FIELD_BOOST.body / FIELD_BOOST.question;
/**
 * Language detection (knowledge with entries in several languages only): a detection is sure on a text
 * of this many words when its first language scores this many times its second (see isSure); unsure, a
 * message's stop word of a language counts this much towards it, a word its knowledge contains 1.
 */
const SURE_RATIO = 2;
const SURE_WORDS = 4;
/**
 * The detector reads at most a text's first DETECT_CHARACTERS characters (it costs about 1 ms per 100);
 * a knowledge text's stop words are counted in its first STOP_WORD_CHARACTERS, and decide its language
 * from STOP_WORDS_SURE of them (see knowledgeLanguage).
 */
const DETECT_CHARACTERS = 200;
const STOP_WORD_CHARACTERS = 1000;
const STOP_WORDS_SURE = 3;
const STOP_WORD_EVIDENCE = 0.5;

// --- analyser ---------------------------------------------------------------------------------

/**
 * English function words plus the chit-chat and texting words customers wrap questions in. "where" is
 * deliberately NOT a stop word: it is the one question word that names a topic (the location).
 */
const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any anyone anything are arent as at be because been " +
    "before being below between both but by can cant could couldnt did didnt do does doesnt doing dont " +
    "down during each few for from further had hadnt has hasnt have havent having he her here hers herself " +
    "him himself his how i if in into is isnt it its itself just let lets me more most my myself no nor " +
    "not of off on once only or other ought our ours ourselves out over own same she should shouldnt so " +
    "some such than that thats the their theirs them themselves then there theres these they this those " +
    "through to too under until up very was wasnt we were werent what whats when which while who " +
    "whom why will with wont would wouldnt you your youre yours yourself yourselves im ive id ill youve " +
    "youd weve also really currently still already maybe perhaps possible able please pls plz thanks " +
    "thank thx cheers hi hello hey hiya dear ok okay yes yeah guys folks wondering wonder wondered quick " +
    "question ask asking want wanted wanting like know tell get got getting go going gonna wanna u ur r " +
    "wat wot whether anybody someone somebody something somewhere anywhere many much lot lots bit " +
    "actually probably kind sort thing things one good great morning afternoon evening " +
    // light verbs, time deictics and hedges: say little about the topic of a customer question
    "take takes taking took make makes making made come comes coming came look looks looking looked see " +
    "seeing give giving put help today tomorrow tonight yesterday now soon later next last moment exactly " +
    "roughly approximately properly usually normally generally basically definitely possibly certainly " +
    "ever even anyway though else another mate yet love hope hoping theyre theyve whos wheres hows heres " +
    "aint " +
    // the people a customer talks about are context, not the topic of the question
    "dad mum mom mother father wife husband partner friend friends boyfriend girlfriend brother sister"
  ).split(" "),
);

/**
 * Generic multi-word expressions, applied to the normalised text before tokenising. Only wording that
 * any shop or service business meets; nothing specific to one knowledge base.
 */
const PHRASE_SYNONYMS: [RegExp, string][] = [
  [/\bhow much\b/g, "price"],
  [/\b(what|wat) time\b/g, "when"],
  [/\bmoney back\b/g, "refund"],
  [/\bmoney off\b/g, "discount"],
  [/\bgift cards?\b/g, "voucher"],
  [/\be ?mail address\b/g, "email"],
  [/\bphone number\b/g, "phone"],
  [
    /\b(get in touch|(speak|talk) to (a |an )?(person|human|someone|somebody|real person|member of staff))\b/g,
    "contact",
  ],
  [/\b(payment plan|spread the (cost|payments?)|pay monthly)\b/g, "instalments"],
  [/\bsend (it |them )?back\b/g, "return"],
  [/\bpick(ing)? (it |them )?up\b/g, "collect"],
  [/\b(turn up|pop in|pop by|drop in|drop by|walk in|walk up)\b/g, "walkin"],
  [/\btrade ?ins?\b/g, "tradein"],
  [/\bpart exchange\b/g, "tradein"],
  [/\bsecond ?hand\b/g, "used"],
  [/\bopening times\b/g, "opening hours"],
];

/**
 * Generic word synonyms and UK/US spelling variants, keyed by Porter stem, mapped to one canonical stem.
 * Applied to the knowledge and the message alike, so both meet on the same term.
 */
const STEM_SYNONYMS = new Map<string, string>(
  Object.entries({
    // price
    cost: "price",
    charg: "price",
    fee: "price",
    expens: "price",
    cheap: "price",
    cheaper: "price",
    quot: "price",
    rate: "price",
    // services, bookings, changes
    fix: "repair",
    mend: "repair",
    hire: "rent",
    rental: "rent",
    appoint: "book",
    reserv: "book",
    move: "chang",
    reschedul: "chang",
    rearrang: "chang",
    postpon: "chang",
    shut: "close",
    // orders, delivery, after-sales
    ship: "deliveri",
    deliv: "deliveri",
    postag: "deliveri",
    dispatch: "deliveri",
    oversea: "abroad",
    internation: "abroad",
    intern: "abroad",
    purchas: "bui",
    carri: "stock",
    try: "test",
    guarante: "warranti",
    reimburs: "refund",
    concess: "discount",
    reward: "loyalti",
    membership: "member",
    // contact, location, jobs, classes
    telephon: "contact",
    phone: "contact",
    call: "contact",
    email: "contact",
    address: "locat",
    whereabout: "locat",
    vacanc: "job",
    recruit: "job",
    career: "job",
    posit: "job",
    cours: "class",
    lesson: "class",
    tutori: "class",
    // people and things
    kid: "child",
    children: "child",
    son: "child",
    daughter: "child",
    toddler: "child",
    bicycl: "bike",
    store: "shop",
    // -ly forms of time words, which Porter keeps apart (weekly -> weekli)
    daili: "dai",
    weekli: "week",
    monthli: "month",
    yearli: "year",
    hourli: "hour",
    nightli: "night",
    // UK / US spelling
    tire: "tyre",
    color: "colour",
    center: "centr",
    program: "programm",
  }),
);

/** Lower case, no accents, no apostrophes ("don't" -> "dont"), punctuation to spaces, phrase synonyms. */
function normaliseText(text: string): string {
  let out = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’`´]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ");
  for (const [pattern, replacement] of PHRASE_SYNONYMS) out = out.replace(pattern, replacement);
  return out;
}

/** Content words of a text (stop words, numbers and 1-letter tokens dropped), before stemming. */
function contentWords(text: string): string[] {
  const words: string[] = [];
  for (const token of normaliseText(text).split(" ")) {
    const word = IRREGULAR_VERBS.get(token) ?? token;
    if (word.length < 2 || STOP_WORDS.has(word) || /^[0-9]+$/.test(word)) continue;
    words.push(word);
  }
  return words;
}

/** Irregular English verb forms that Porter stemming cannot relate to their base form. */
const IRREGULAR_VERBS = new Map<string, string>(
  (
    "bought:buy sold:sell paid:pay brought:bring broke:break broken:break rode:ride ridden:ride sent:send " +
    "left:leave lost:lose stole:steal stolen:steal went:go gone:go found:find gave:give given:give " +
    "chose:choose chosen:choose wrote:write written:write built:build spent:spend kept:keep told:tell " +
    "thought:think saw:see seen:see bent:bend fell:fall fallen:fall wore:wear worn:wear tore:tear " +
    "torn:tear hung:hang held:hold met:meet ran:run won:win understood:understand forgot:forget " +
    "forgotten:forget began:begin begun:begin taught:teach caught:catch"
  )
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);

function termOf(word: string): string {
  const stem = stemmer(word);
  return STEM_SYNONYMS.get(stem) ?? stem;
}

/** Optimal string alignment distance (Levenshtein + adjacent transposition), capped at `max + 1`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      }
      row.push(value);
      rowMin = Math.min(rowMin, value);
    }
    rows.push(row);
    if (i > 0 && rowMin > max) return max + 1;
  }
  return rows[a.length]![b.length]!;
}

/**
 * Whether `word` plausibly is a misspelling of `candidate`. Conservative, because a "corrected" word that
 * was not a typo (dinner -> inner) turns an off-topic message into a match: the first letter must agree
 * (typos rarely hit it), words of 3-4 letters may only miss one letter (bok -> book), 5-9 letters allow
 * one edit and longer words two (an edit = insertion, deletion, substitution or swap of adjacent letters).
 */
function isTypoOf(word: string, candidate: string): boolean {
  if (word.length < 3 || word[0] !== candidate[0] || word === candidate) return false;
  if (word.length < 5) return candidate.length === word.length + 1 && editDistance(word, candidate, 1) <= 1;
  const max = word.length < 10 ? 1 : 2;
  return editDistance(word, candidate, max) <= max;
}

const LONG_STOP_WORDS = [...STOP_WORDS].filter((w) => w.length >= 4).sort();

/** A typo of a stop word ("wher", "normaly") is dropped like the stop word itself. */
function isMisspeltStopWord(word: string, analyser: Analyser): boolean {
  return analyser.longStopWords.some((stop) => isTypoOf(word, stop));
}

/** The English analyser: everything above (the other languages' analysers are in languages.ts). */
const ENGLISH: Analyser = {
  language: "en",
  contentWords,
  termOf,
  isStopWord: (token) => STOP_WORDS.has(token),
  stopWords: STOP_WORDS,
  tokens: (text) => normaliseText(text).split(" ").filter(Boolean),
  longStopWords: LONG_STOP_WORDS,
};

const analyserFor = (language: Language): Analyser => (language === "en" ? ENGLISH : analyserOf(language));

// --- passages ---------------------------------------------------------------------------------

type Passage = {
  id: number;
  entryIndex: number;
  /** A phrasing (stored question or alternative) of a question/answer entry; else a free-text sentence. */
  phrasing: boolean;
  question: string;
  body: string;
  context: string;
  reply: string;
};

/** Splits free text into sentences; a heading line ("Opening hours:") is glued to what follows. */
function splitPassages(text: string): string[] {
  const lines = text
    .split(/\r?\n+/)
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "").trim())
    .filter((line) => line.length > 0);
  const sentences: string[] = [];
  let pending = "";
  for (const line of lines) {
    const parts = line.split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u).filter((part) => part.trim());
    for (const part of parts) {
      const joined = pending ? `${pending} ${part}` : part;
      if (
        /[:]$/.test(part) ||
        (parts.length === 1 && !/[.!?]$/.test(part) && part.split(/\s+/).length <= 4)
      ) {
        pending = joined;
      } else {
        sentences.push(joined);
        pending = "";
      }
    }
  }
  if (pending) sentences.push(pending);
  return sentences;
}

function buildPassages(entries: KnowledgeEntry[]): Passage[] {
  const passages: Passage[] = [];
  entries.forEach((entry, entryIndex) => {
    const question = entry.question?.trim() ?? "";
    const answer = entry.answer?.trim() ?? "";
    const text = entry.text?.trim() ?? "";
    if (answer) {
      // Stored knowledge is parsed leniently: a damaged alternatives value is ignored, not fatal.
      const alternatives = Array.isArray(entry.alternatives)
        ? entry.alternatives.filter((a): a is string => typeof a === "string" && a.trim() !== "")
        : [];
      for (const phrasing of [question, ...alternatives]) {
        passages.push({
          id: passages.length,
          entryIndex,
          phrasing: true,
          question: phrasing.trim(),
          body: answer,
          context: text,
          reply: answer,
        });
      }
      return;
    }
    if (!text) return;
    for (const sentence of splitPassages(text)) {
      passages.push({
        id: passages.length,
        entryIndex,
        phrasing: false,
        question,
        body: sentence,
        context: text,
        reply: sentence,
      });
    }
  });
  return passages;
}

// --- engine -----------------------------------------------------------------------------------

/** `direct`: some term matched the passage itself (question or sentence), not only its surrounding text. */
type Ranked = { passage: Passage; bm25: number; confidence: number; direct: boolean };

type Index = {
  passages: Passage[];
  rank(message: string, limit: number): Ranked[];
  languageOf(message: string): Language | null;
  entryLanguages: readonly Language[];
};

/** BM25 over some of the passages (one language's, or all), analysed for messages in one language. */
type Ranker = {
  rank(message: string, limit: number): Ranked[];
  /** How much of a message this language's analyser and vocabulary know: stop words and known words. */
  evidence(message: string): number;
};

/**
 * `members` are the passages ranked (ids index `passages`); each is analysed with its own language's
 * analyser, the message with `analyser`. With one language everywhere (every knowledge base before
 * issue 34), this is the engine as it was.
 */
function buildRanker(
  passages: Passage[],
  members: Passage[],
  analyserOfPassage: (p: Passage) => Analyser,
  analyser: Analyser,
): Ranker {
  const search = new MiniSearch<{ id: number; question: string; body: string; context: string }>({
    fields: ["question", "body", "context"],
    tokenize: (text) => (text ? text.split(" ") : []),
    processTerm: (term) => term || null,
  });
  // Frequencies count units: a question/answer entry once for all its phrasings (they repeat its answer,
  // which must not make its words look common), each free-text sentence on its own.
  const unitOf = (p: Passage) => (p.phrasing ? p.entryIndex : -1 - p.id);
  const documentFrequency = new Map<string, number>();
  const countedFor = new Map<string, number>(); // term -> last unit counted
  // Surface word -> term, for the words of the message's language (the typo corrections' candidates);
  // passages in other languages (all languages ranked together) keep their words apart.
  const vocabulary = new Map<string, string>();
  const otherVocabularies = new Map<Language, Map<string, string>>();
  const analysedTexts = new Map<string, string[]>(); // the question and full text repeat across passages
  const analyseField = (text: string, fieldAnalyser: Analyser): string[] => {
    const same = fieldAnalyser === analyser;
    const key = same ? text : `${fieldAnalyser.language}\u0000${text}`;
    let terms = analysedTexts.get(key);
    if (!terms) {
      let words = vocabulary;
      if (!same) {
        words = otherVocabularies.get(fieldAnalyser.language) ?? new Map<string, string>();
        otherVocabularies.set(fieldAnalyser.language, words);
      }
      terms = [];
      for (const word of fieldAnalyser.contentWords(text)) {
        let term = words.get(word);
        if (term === undefined) {
          term = fieldAnalyser.termOf(word);
          words.set(word, term);
        }
        terms.push(term);
      }
      analysedTexts.set(key, terms);
    }
    return terms;
  };
  for (const passage of members) {
    const passageAnalyser = analyserOfPassage(passage);
    const question = analyseField(passage.question, passageAnalyser);
    const body = analyseField(passage.body, passageAnalyser);
    const context = analyseField(passage.context, passageAnalyser);
    search.add({
      id: passage.id,
      question: question.join(" "),
      body: body.join(" "),
      context: context.join(" "),
    });
    for (const term of new Set([...question, ...body, ...context])) {
      const unit = unitOf(passage);
      if (countedFor.get(term) === unit) continue;
      countedFor.set(term, unit);
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  // The terms customers ask an entry with (all its phrasings), for entries with alternatives only: at
  // least two distinct phrasings (raw stored knowledge may repeat the question as an alternative).
  const phrasingsOf = new Map<number, { texts: Set<string>; analyser: Analyser }>();
  for (const p of members) {
    if (!p.phrasing || !p.question) continue;
    const phrasings = phrasingsOf.get(p.entryIndex) ?? {
      texts: new Set<string>(),
      analyser: analyserOfPassage(p),
    };
    phrasingsOf.set(p.entryIndex, phrasings);
    phrasings.texts.add(p.question.toLowerCase());
  }
  const phrasingTerms = new Map<number, Set<string>>();
  for (const [entryIndex, { texts, analyser: a }] of phrasingsOf) {
    if (texts.size >= 2)
      phrasingTerms.set(entryIndex, new Set([...texts].flatMap((t) => analyseField(t, a))));
  }
  /** Whether a message term matches one of these terms as MiniSearch does: exactly, or as a prefix. */
  const containsTerm = (terms: Set<string>, term: string) => {
    if (terms.has(term)) return true;
    if (term.length < MIN_PREFIX_LENGTH) return false;
    for (const t of terms) if (t.startsWith(term)) return true;
    return false;
  };

  const sortedVocabulary = [...vocabulary.keys()].sort();
  // Units the frequencies count: question/answer entries, and free-text sentences.
  const n = new Set(members.map(unitOf)).size;
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const maxIdf = idf(0);
  const weightOf = (term: string) =>
    WEIGHT_FLOOR + ((1 - WEIGHT_FLOOR) * idf(documentFrequency.get(term) ?? 0)) / maxIdf;

  /** Closest knowledge word the message word is a plausible typo of; ties go to the more frequent term. */
  const correct = (word: string): string | null => {
    let best: string | null = null;
    let bestDistance = Number.POSITIVE_INFINITY;
    let bestFrequency = -1;
    for (const candidate of sortedVocabulary) {
      if (!isTypoOf(word, candidate)) continue;
      const distance = editDistance(word, candidate, 2);
      const frequency = documentFrequency.get(vocabulary.get(candidate)!) ?? 0;
      if (distance < bestDistance || (distance === bestDistance && frequency > bestFrequency)) {
        best = candidate;
        bestDistance = distance;
        bestFrequency = frequency;
      }
    }
    return best;
  };

  const analyseMessage = (message: string) => {
    const terms = new Map<string, number>(); // term -> credit (1, or INEXACT_MATCH_CREDIT if corrected)
    const seen = new Set<string>();
    for (const word of analyser.contentWords(message)) {
      if (seen.has(word)) continue;
      seen.add(word);
      let term = vocabulary.get(word) ?? analyser.termOf(word);
      let credit = 1;
      if (!documentFrequency.has(term) && !vocabulary.has(word)) {
        const corrected = correct(word);
        if (corrected) {
          term = vocabulary.get(corrected)!;
          credit = INEXACT_MATCH_CREDIT;
        } else if (isMisspeltStopWord(word, analyser)) {
          continue;
        }
      }
      if (term) terms.set(term, Math.max(terms.get(term) ?? 0, credit));
    }
    return terms;
  };

  /**
   * Passages ranked by BM25 (ties: knowledge order), each with its confidence: the weighted share of the
   * message's terms found in the passage, in [0, 1] whatever the size of the knowledge base.
   */
  const rank = (message: string, limit: number): Ranked[] => {
    if (n === 0 || limit <= 0) return [];
    const terms = analyseMessage(message);
    if (terms.size === 0) return [];
    let total = 0;
    for (const term of terms.keys()) total += weightOf(term);
    const results = search.search([...terms.keys()].join(" "), {
      boost: FIELD_BOOST,
      boostTerm: (term) => terms.get(term) ?? 1,
      prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
    });
    const ranked = results.map((result) => {
      const passage = passages[result.id as number]!;
      const askedWith = phrasingTerms.get(passage.entryIndex);
      const exact = new Set(result.terms);
      let matched = 0;
      for (const term of result.queryTerms) {
        let credit = (terms.get(term) ?? 0) * (exact.has(term) ? 1 : INEXACT_MATCH_CREDIT);
        if (askedWith && !containsTerm(askedWith, term)) credit *= ANSWER_ONLY_CREDIT;
        matched += weightOf(term) * credit;
      }
      const direct = Object.values(result.match).some((fields) =>
        fields.some((field) => field !== "context"),
      );
      return {
        passage,
        bm25: result.score,
        confidence: matched / total,
        direct,
      };
    });
    ranked.sort((a, b) => b.bm25 - a.bm25 || a.passage.id - b.passage.id);
    return ranked.slice(0, limit);
  };

  const evidence = (message: string): number => {
    let score = 0;
    for (const token of new Set(analyser.tokens(message))) {
      if (analyser.isStopWord(token)) score += STOP_WORD_EVIDENCE;
      else if (token.length >= 2 && (vocabulary.has(token) || documentFrequency.has(analyser.termOf(token))))
        score += 1;
    }
    return score;
  };

  return { rank, evidence };
}

/** The language with the highest score (above 0), unless two share it: then `tieBreak` if one of them. */
function bestOf(scores: Map<Language, number>, tieBreak: Language | null): Language | null {
  let top = 0;
  for (const score of scores.values()) top = Math.max(top, score);
  if (top <= 0) return null;
  const best = [...scores].filter(([, score]) => score === top).map(([language]) => language);
  if (best.length === 1) return best[0]!;
  return tieBreak && best.includes(tieBreak) ? tieBreak : null;
}

/**
 * The language of a knowledge text, or null when it cannot be told (a short text, a language the engine
 * does not analyse). First by its stop words, which is cheap (the detector costs about 1 ms per 100
 * characters, too much for a knowledge source's thousands of passages): a language whose stop words the
 * text uses at least STOP_WORDS_SURE times, and twice as often as any other language's. Otherwise the
 * detector, on the text's first DETECT_CHARACTERS characters, when it is sure; otherwise stop words
 * again, the most (ties: the detector's guess).
 */
export function knowledgeLanguage(text: string): Language | null {
  const stopWords = new Map<Language, number>();
  // One rough tokenisation for all languages (lower case, no accents, split at anything not a letter).
  let start = text.slice(0, STOP_WORD_CHARACTERS).toLowerCase();
  if (/[^\p{ASCII}]/u.test(start)) start = start.normalize("NFKD").replace(/\p{M}+/gu, "");
  const tokens = start.split(/[^\p{L}]+/u);
  for (const language of LANGUAGES) {
    const own = ownStopWords(language);
    let count = 0;
    for (const token of tokens) if (own.has(token)) count++;
    stopWords.set(language, count);
  }
  const [first, second] = [...stopWords.values()].sort((a, b) => b - a);
  if (first! >= STOP_WORDS_SURE && first! >= 2 * second!) return bestOf(stopWords, null);
  const sample = text.slice(0, DETECT_CHARACTERS);
  const detection = detectLanguage(sample);
  if (isSure(detection, sample)) return detection.language;
  return bestOf(stopWords, detection.language);
}

const ownStopWordSets = new Map<Language, Set<string>>();

/** A language's stop words that no other analysed language has ("the", "und", "los", not "a" or "de"). */
function ownStopWords(language: Language): Set<string> {
  let own = ownStopWordSets.get(language);
  if (!own) {
    const others = LANGUAGES.filter((l) => l !== language).map((l) => analyserFor(l).stopWords);
    own = new Set([...analyserFor(language).stopWords].filter((w) => !others.some((o) => o.has(w))));
    ownStopWordSets.set(language, own);
  }
  return own;
}

/**
 * The language of each entry (its question and answer, or its text), detected once when the engine is
 * built, and the knowledge's majority language. An entry whose language cannot be told takes the
 * majority language; with no entry told at all, English.
 */
function knowledgeLanguages(entries: KnowledgeEntry[]): { of: Language[]; majority: Language } {
  const detected = entries.map((entry) =>
    knowledgeLanguage(
      [entry.question, entry.answer ?? entry.text].filter((t) => typeof t === "string").join(" "),
    ),
  );
  const counts = new Map<Language, number>();
  for (const language of detected) if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  let majority: Language = "en";
  let most = 0;
  // Ties go to the language met first in the knowledge.
  for (const [language, count] of counts) {
    if (count > most) {
      majority = language;
      most = count;
    }
  }
  return { of: detected.map((language) => language ?? majority), majority };
}

/**
 * Whether a detection can be trusted on its own: tinyld found a word shape only one language has
 * (accuracy 1) in a text of 2+ words, or, in a text of 4+ words, its first language scores at least
 * twice its second. On the development material (826 texts: the five-language knowledge and dev set,
 * short messages, the English sets) no sure detection was wrong; unsure ones were right 72 % of
 * the time.
 */
function isSure(detection: Detection, text: string): boolean {
  const words = text.split(/[^\p{L}]+/u).filter(Boolean).length;
  if (detection.accuracy >= 1) return words >= 2;
  return (
    words >= SURE_WORDS && detection.accuracy > 0 && detection.accuracy >= SURE_RATIO * detection.runnerUp
  );
}

function buildIndex(entries: KnowledgeEntry[]): Index {
  const passages = buildPassages(entries);
  const languages = knowledgeLanguages(entries);
  const groups = new Map<Language, Passage[]>();
  for (const passage of passages) {
    const language = languages.of[passage.entryIndex]!;
    const members = groups.get(language) ?? [];
    groups.set(language, members);
    members.push(passage);
  }
  const analyserOfPassage = (p: Passage) => analyserFor(languages.of[p.entryIndex]!);
  if (groups.size <= 1) {
    // One language: no detection per message, the knowledge's analyser for everything.
    const ranker = buildRanker(passages, passages, analyserOfPassage, analyserFor(languages.majority));
    return { passages, rank: ranker.rank, languageOf: () => null, entryLanguages: languages.of };
  }
  const rankers = new Map<Language, Ranker>();
  for (const [language, members] of groups) {
    rankers.set(language, buildRanker(passages, members, analyserOfPassage, analyserFor(language)));
  }
  let everything: Ranker | undefined; // built the first time a message's language has no entries
  /**
   * The message's language: the detector's when it is sure; otherwise the language whose stop words and
   * knowledge words the message uses most (a tie goes to the detector's guess); otherwise (nothing known,
   * as in "hi" or "parking?") the knowledge's majority language. null: a language the knowledge has no
   * entries in (sure detections only).
   */
  const detectMessage = (message: string): Language | null => {
    const sample = message.slice(0, DETECT_CHARACTERS);
    const detection = detectLanguage(sample);
    if (isSure(detection, sample)) return detection.language;
    const evidence = new Map<Language, number>();
    for (const [language, ranker] of rankers) evidence.set(language, ranker.evidence(sample));
    return bestOf(evidence, detection.language) ?? languages.majority;
  };
  // decide() and top() on the same message detect once.
  let last: { message: string; language: Language | null } | undefined;
  const languageOf = (message: string): Language | null => {
    if (last?.message !== message) last = { message, language: detectMessage(message) };
    return last.language;
  };
  return {
    passages,
    languageOf: (message) => {
      const language = languageOf(message);
      return language && rankers.has(language) ? language : null;
    },
    entryLanguages: languages.of,
    rank(message, limit) {
      const language = languageOf(message);
      let ranker = language ? rankers.get(language) : undefined;
      if (!ranker) {
        // Every entry competes, each analysed in its own language, the message in the majority's.
        everything ??= buildRanker(passages, passages, analyserOfPassage, analyserFor(languages.majority));
        ranker = everything;
      }
      return ranker.rank(message, limit);
    },
  };
}

export function createBuiltinEngine(
  entries: KnowledgeEntry[],
  options: { threshold?: number; choiceFloor?: number; tieMargin?: number } = {},
): BuiltinEngine {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  const choiceFloor = options.choiceFloor ?? CHOICE_FLOOR;
  const tieMargin = options.tieMargin ?? TIE_MARGIN;
  const index = buildIndex(entries);
  const closest = (message: string): BuiltinMatch | null => {
    const best = index.rank(message, 1)[0];
    if (!best) return null;
    const source = entries[best.passage.entryIndex]?.source;
    return {
      answer: best.passage.reply,
      score: best.confidence,
      entryIndex: best.passage.entryIndex,
      ...(source ? { source: { id: source.id, name: source.name, passage: best.passage.context } } : {}),
    };
  };
  const matchOf = (passage: Passage, confidence: number): BuiltinMatch => {
    const source = entries[passage.entryIndex]?.source;
    return {
      answer: passage.reply,
      score: confidence,
      entryIndex: passage.entryIndex,
      ...(source ? { source: { id: source.id, name: source.name, passage: passage.context } } : {}),
    };
  };
  const titleOf = (entryIndex: number): string | null => {
    const entry = entries[entryIndex];
    const title = entry?.question ? oneLine(entry.question) : "";
    return title ? title : null;
  };
  const decide = (message: string): BuiltinDecision => {
    // The best passage of each entry, best entry first (an entry's phrasings are one candidate).
    const candidates: Ranked[] = [];
    const taken = new Set<number>();
    for (const r of index.rank(message, 50)) {
      if (taken.has(r.passage.entryIndex)) continue;
      taken.add(r.passage.entryIndex);
      candidates.push(r);
      if (candidates.length >= MAX_CHOICES + 1) break;
    }
    const [best, second] = candidates;
    if (!best) return { kind: "fallback" };
    const tie =
      second !== undefined &&
      second.confidence >= best.confidence - tieMargin &&
      best.bm25 < second.bm25 * TIE_BM25_RATIO;
    if (best.confidence >= threshold && !tie)
      return { kind: "answer", match: matchOf(best.passage, best.confidence) };
    // Only entries with a name can be offered ("1. Opening hours"); free text without a heading cannot.
    const floor = best.confidence >= threshold ? best.confidence - tieMargin : choiceFloor;
    const choices: BuiltinChoice[] = [];
    for (const c of candidates) {
      const title = titleOf(c.passage.entryIndex);
      if (c.confidence < floor || !title) continue;
      if (choices.some((x) => x.title.toLowerCase() === title.toLowerCase())) continue;
      choices.push({ ...matchOf(c.passage, c.confidence), title });
      if (choices.length >= MAX_CHOICES) break;
    }
    if (choices.length >= 2) return { kind: "choices", choices };
    if (best.confidence >= threshold)
      return { kind: "answer", match: matchOf(best.passage, best.confidence) };
    return { kind: "fallback" };
  };
  return {
    match(message: string): BuiltinMatch | null {
      const best = closest(message);
      return best && best.score >= threshold ? best : null;
    },
    decide,
    answerOf(entryIndex: number): BuiltinMatch | null {
      const entry = entries[entryIndex];
      const passage = index.passages.find((p) => p.entryIndex === entryIndex);
      if (!entry || !passage) return null;
      // A question/answer entry answers with its answer; a source passage with the whole passage.
      const answer = entry.answer?.trim() || entry.text?.trim() || passage.reply;
      return { ...matchOf(passage, 1), answer };
    },
    closest,
    top: (message, limit) => topOf(index, entries, message, limit),
    languageOf: index.languageOf,
    entryLanguages: index.entryLanguages,
  };
}

/**
 * The knowledge most relevant to the message, best first, to put in an LLM prompt: question/answer
 * entries are returned whole, free-text entries as their matching sentence ({ text }). No threshold:
 * anything sharing a content term with the message can be returned.
 */
export function topPassages(entries: KnowledgeEntry[], message: string, limit: number): KnowledgeEntry[] {
  if (limit <= 0) return [];
  return topOf(buildIndex(entries), entries, message, limit);
}

function topOf(index: Index, entries: KnowledgeEntry[], message: string, limit: number): KnowledgeEntry[] {
  if (limit <= 0) return [];
  const out: KnowledgeEntry[] = [];
  const entriesTaken = new Set<number>();
  // Sentences that share no term with the message themselves (only with the rest of their text) are skipped.
  for (const { passage, direct } of index.rank(message, index.passages.length)) {
    if (!direct) continue;
    const entry = entries[passage.entryIndex]!;
    if (entry.answer?.trim()) {
      // An entry appears once, whole, however many of its phrasings matched.
      if (entriesTaken.has(passage.entryIndex)) continue;
      entriesTaken.add(passage.entryIndex);
      out.push({ ...entry });
    } else if (entry.source) {
      // A knowledge source's passage is given whole (a few sentences), with its heading, once.
      if (entriesTaken.has(passage.entryIndex)) continue;
      entriesTaken.add(passage.entryIndex);
      out.push({ text: entry.question ? `${entry.question}: ${entry.text ?? ""}` : (entry.text ?? "") });
    } else out.push({ text: passage.reply });
    if (out.length >= limit) break;
  }
  return out;
}
