import { RULES } from './rules';

// The one pass over every byte. Each key literal of each rule has an anchor byte; the loop reads
// the text two bytes at a time and stops only at a pair that holds an anchor next to a byte its
// keys allow there (PAIRS), where the anchor's other neighbour is tested and the keys compared in
// full. Only lines holding a whole key are decoded and given to the rule's pattern. The marker's
// bracket and its look-alike are keys too (as UTF-8 bytes), so the same pass finds them. This is
// the stage's only scan (docs/secrets.md says what it costs and why there is no faster second one).

/** Rule index of the marker look-alike keys (not a rule: they are replaced, not redacted). */
export const LOOKALIKE = -1;

interface Key {
  /** The literal; a caseless key's letters in lower case. */
  readonly bytes: Uint8Array;
  /** Per byte, what is or-ed into the text's byte before comparing: 0x20 for a caseless key's letters, else 0. */
  readonly fold: Uint8Array;
  /** Index of the anchor byte in `bytes`. */
  readonly anchor: number;
  /** Index into RULES, or LOOKALIKE. */
  readonly rule: number;
  /** The key starts a word: the byte before it is no letter, digit or `_`. */
  readonly wordStart?: boolean;
}

const LETTER = (b: number): boolean => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
const WORD = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;

/**
 * Bytes from rare to common in command output (a byte not listed counts as rarest: the non-ASCII
 * bytes of the look-alike keys). A byte's place here stands for the logarithm of its frequency,
 * so the sum of two places ranks how common a pair of bytes is.
 */
const BY_FREQUENCY = '~`^|\\{}@&?#$%_!;JQXZVKYWUFHAjqzBMGDPOLNRISCET-=xkvbwgymfp,"\'()[]<>+*/:.0123456789ucdlhrsnioate \t\n';

/** A byte's place in BY_FREQUENCY; a caseless letter is as common as its commoner case. */
function rank(byte: number, caseless = false): number {
  if (caseless && LETTER(byte)) return Math.max(rank(byte | 0x20), rank(byte & ~0x20));
  return BY_FREQUENCY.indexOf(String.fromCharCode(byte));
}

/** The bytes a key's byte matches in the text: both cases of a caseless key's letter. */
function cases(byte: number, caseless: boolean): number[] {
  return caseless && LETTER(byte) ? [byte | 0x20, byte & ~0x20] : [byte];
}

function makeKey(key: string, rule: number, caseless: boolean): Key {
  // A key written `\\bKEY` starts a word: the byte before it is no letter, digit or `_`.
  const wordStart = key.startsWith('\\b');
  const literal = wordStart ? key.slice(2) : key;
  const bytes = Uint8Array.from(caseless ? literal.toLowerCase() : literal, (c) => c.charCodeAt(0));
  const fold = bytes.map((b) => (caseless && LETTER(b) ? 0x20 : 0));
  return { bytes, fold, anchor: anchorOf(bytes, caseless), rule, wordStart };
}

/**
 * The key's anchor: the scan stops where a pair of bytes holds an anchor and one of its neighbours
 * (PAIRS), so the anchor is the byte whose pairs with both neighbours are rare. A pair's rank is
 * the sum of its bytes' ranks; a neighbour outside the key can be any byte, ranked as the commonest.
 */
function anchorOf(bytes: Uint8Array, caseless: boolean): number {
  const any = BY_FREQUENCY.length;
  const at = (i: number): number => (i < 0 || i >= bytes.length ? any : rank(bytes[i], caseless));
  let best = 0;
  let bestCost = Infinity;
  for (let i = 0; i < bytes.length; i++) {
    const cost = at(i) + Math.max(at(i - 1), at(i + 1));
    if (cost < bestCost) [best, bestCost] = [i, cost];
  }
  return best;
}

const KEYS: readonly Key[] = [
  ...RULES.flatMap((r, i) => r.keys.map((k) => makeKey(k, i, r.caseless === true))),
  // U+27E6 and U+301A: the anchor is fixed to a byte that is rare in text (the lead bytes are not).
  { bytes: Uint8Array.of(0xe2, 0x9f, 0xa6), fold: new Uint8Array(3), anchor: 1, rule: LOOKALIKE },
  { bytes: Uint8Array.of(0xe3, 0x80, 0x9a), fold: new Uint8Array(3), anchor: 2, rule: LOOKALIKE },
];

/** Keys by anchor byte: ANCHORS[b] is 0, or 1 + the index of b's key list (a caseless key is in both of its anchor's lists). */
const ANCHORS = new Uint8Array(256);
const KEYS_BY_ANCHOR: Key[][] = [];
/**
 * Per anchor: the bytes its keys allow just before and just after it (256 entries each, 1 = some
 * key allows it), so most anchors that are ordinary letters are passed over after two lookups.
 */
const NEIGHBOURS: Uint8Array[] = [];
for (const k of KEYS) {
  const caseless = k.fold[k.anchor] !== 0;
  for (const b of cases(k.bytes[k.anchor], caseless)) {
    if (ANCHORS[b] === 0) {
      KEYS_BY_ANCHOR.push([]);
      NEIGHBOURS.push(new Uint8Array(512));
      ANCHORS[b] = KEYS_BY_ANCHOR.length;
    }
    const slot = ANCHORS[b] - 1;
    KEYS_BY_ANCHOR[slot].push(k);
    const n = NEIGHBOURS[slot];
    if (k.anchor > 0) for (const c of cases(k.bytes[k.anchor - 1], k.fold[k.anchor - 1] !== 0)) n[c] = 1;
    else for (let c = 0; c < 256; c++) if (!k.wordStart || !WORD(c)) n[c] = 1;
    if (k.anchor === k.bytes.length - 1) n.fill(1, 256, 512);
    else for (const c of cases(k.bytes[k.anchor + 1], k.fold[k.anchor + 1] !== 0)) n[256 + c] = 1;
  }
}

/**
 * Pairs of bytes that can hold an anchor with its neighbour: PAIRS[pair] is 1 when the first byte
 * is an anchor that the second may follow, or the second an anchor that the first may precede.
 * The scan reads the text two bytes at a time through a 16-bit view (one lookup per two bytes,
 * where a table per byte needs two), and a pair's index is its 16-bit value in the platform's byte
 * order. Each anchor meets one of its neighbour tests inside its pair, so the ordinary letters
 * among the anchors rarely stop the loop.
 */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const PAIRS = new Uint8Array(65536);
for (let first = 0; first < 256; first++) {
  for (let second = 0; second < 256; second++) {
    const a = ANCHORS[first];
    const b = ANCHORS[second];
    if ((a !== 0 && NEIGHBOURS[a - 1][256 + second] !== 0) || (b !== 0 && NEIGHBOURS[b - 1][first] !== 0)) {
      PAIRS[LITTLE_ENDIAN ? first | (second << 8) : (first << 8) | second] = 1;
    }
  }
}

/**
 * Calls `hit(rule, start)` for every key found in `bytes[from, end)` (the key may start up to its
 * anchor's index before `from`), in order of position; `rule` is an index into RULES or LOOKALIKE.
 */
export function findKeys(bytes: Uint8Array, from: number, end: number, hit: (rule: number, start: number) => void): void {
  // The 16-bit view starts at an even address, and takes whole steps of 8 bytes; the bytes before
  // and after it are looked at one by one.
  const start = Math.min(end, from + ((bytes.byteOffset + from) & 1));
  const steps = (end - start) >> 3;
  eachByte(bytes, from, start, end, hit);
  if (steps > 0) byPairs(bytes, new Uint16Array(bytes.buffer, bytes.byteOffset + start, steps * 4), start, end, hit);
  eachByte(bytes, start + steps * 8, end, end, hit);
}

/**
 * The loop over the text, eight bytes per step: four pair lookups (most steps find nothing), then
 * each byte of a pair that found something goes to {@link candidate}. (Kept apart from the ends,
 * so the optimised loop holds no path that ran too rarely to be profiled.)
 */
function byPairs(bytes: Uint8Array, pairs: Uint16Array, at: number, end: number, hit: (rule: number, start: number) => void): void {
  const n = pairs.length;
  for (let p = 0; p < n; p += 4) {
    if ((PAIRS[pairs[p]] | PAIRS[pairs[p + 1]] | PAIRS[pairs[p + 2]] | PAIRS[pairs[p + 3]]) === 0) continue;
    for (let q = p; q < p + 4; q++) {
      if (PAIRS[pairs[q]] === 0) continue;
      candidate(bytes, at + 2 * q, end, hit);
      candidate(bytes, at + 2 * q + 1, end, hit);
    }
  }
}

function eachByte(bytes: Uint8Array, from: number, to: number, end: number, hit: (rule: number, start: number) => void): void {
  for (let i = from; i < to; i++) candidate(bytes, i, end, hit);
}

/** An anchor at `at` whose neighbours some key allows: compared in full. */
function candidate(bytes: Uint8Array, at: number, end: number, hit: (rule: number, start: number) => void): void {
  const a = ANCHORS[bytes[at]];
  if (a === 0) return;
  const n = NEIGHBOURS[a - 1];
  if (n[at > 0 ? bytes[at - 1] : 0] === 0 || n[256 + (at + 1 < end ? bytes[at + 1] : 0)] === 0) return;
  for (const k of KEYS_BY_ANCHOR[a - 1]) {
    const start = at - k.anchor;
    if (start < 0 || start + k.bytes.length > end) continue;
    let j = 0;
    while (j < k.bytes.length && (bytes[start + j] | k.fold[j]) === k.bytes[j]) j++;
    if (j === k.bytes.length && !(k.wordStart && start > 0 && WORD(bytes[start - 1]))) hit(k.rule, start);
  }
}
