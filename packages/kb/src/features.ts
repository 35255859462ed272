// Text features for the hashing embedder: word unigrams, word bigrams and character 3-grams of words.

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

// Words too common to say what a text is about (English only; other scripts keep every word).
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can do does for from has have how i if in into is it its me my no not of on or ' +
    'our so that the their then there these this to was we what when where which who why will with you your'
  ).split(' '),
);

export const FEATURE_WEIGHTS = { unigram: 1, bigram: 0.6, trigram: 0.3 } as const;

// Scripts written without spaces between words: a run of them becomes overlapping character pairs.
const UNSPACED_RUN = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+|[^\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+/gu;
const UNSPACED = /^[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;

function characterPairs(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  return chars.slice(1).map((char, i) => (chars[i] as string) + char);
}

/**
 * Lower-cased words of `text`, any script (NFKC-normalised so full-width, ligature and decomposed
 * forms match). Han and kana runs become character pairs ("東京タワー" -> 東京, 京タ, タワ, ワー).
 */
export function words(text: string): string[] {
  const found: string[] = [];
  for (const word of text.normalize('NFKC').toLowerCase().match(WORD) ?? []) {
    for (const run of word.match(UNSPACED_RUN) ?? []) {
      if (UNSPACED.test(run)) found.push(...characterPairs(run));
      else found.push(run);
    }
  }
  return found;
}

/** Character 3-grams of a word with boundary marks: "key" -> "<ke", "key", "ey>". */
function trigrams(word: string): string[] {
  const chars = ['<', ...word, '>'];
  const grams: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) grams.push(chars.slice(i, i + 3).join(''));
  return grams;
}

/** Feature key -> weight before term-frequency damping, summed over occurrences: key -> [weight, count]. */
export function extractFeatures(text: string): Map<string, { weight: number; count: number }> {
  const all = words(text);
  const content = all.filter((w) => !STOP_WORDS.has(w));
  const kept = content.length > 0 ? content : all;

  const features = new Map<string, { weight: number; count: number }>();
  const add = (key: string, weight: number): void => {
    const entry = features.get(key);
    if (entry) entry.count++;
    else features.set(key, { weight, count: 1 });
  };
  kept.forEach((word, i) => {
    add(`w:${word}`, FEATURE_WEIGHTS.unigram);
    if (i > 0) add(`b:${kept[i - 1] as string} ${word}`, FEATURE_WEIGHTS.bigram);
    for (const gram of trigrams(word)) add(`c:${gram}`, FEATURE_WEIGHTS.trigram);
  });
  return features;
}
