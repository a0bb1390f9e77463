import { RULES } from './rules';

// The one pass over every byte. Each key literal of each rule is found by its rarest byte (its
// anchor: the loop looks at one table entry per byte and stops only at anchors), then compared in
// full; only lines holding a whole key are decoded and given to the rule's pattern. The marker's
// bracket and its look-alike are keys too (as UTF-8 bytes), so the same pass finds them.

/** Rule index of the marker look-alike keys (not a rule: they are replaced, not redacted). */
export const LOOKALIKE = -1;

interface Key {
  readonly bytes: Uint8Array;
  /** Index of the anchor byte in `bytes`. */
  readonly anchor: number;
  /** Index into RULES, or LOOKALIKE. */
  readonly rule: number;
  /** The key starts a word: the byte before it is no letter, digit or `_`. */
  readonly wordStart?: boolean;
}

const WORD = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;

/**
 * Bytes from rare to common in command output; the first of a key's bytes in this order is its
 * anchor. Bytes not listed count as rarest (non-ASCII bytes: the look-alike keys' second bytes).
 */
const BY_FREQUENCY = '~`^|\\{}@&?#$%_!;JQXZVKYWUFHAjqzBMGDPOLNRISCET-=xkvbwgymfp,"\'()[]<>+*/:.0123456789ucdlhrsnioate \t\n';

function rank(byte: number): number {
  const i = BY_FREQUENCY.indexOf(String.fromCharCode(byte));
  return i < 0 ? -1 : i;
}

function makeKey(key: string, rule: number): Key {
  // A key written `\\bKEY` starts a word: the byte before it is no letter, digit or `_`.
  const wordStart = key.startsWith('\\b');
  const bytes = Uint8Array.from(wordStart ? key.slice(2) : key, (c) => c.charCodeAt(0));
  let anchor = 0;
  for (let i = 1; i < bytes.length; i++) if (rank(bytes[i]) < rank(bytes[anchor])) anchor = i;
  return { bytes, anchor, rule, wordStart };
}

const KEYS: readonly Key[] = [
  ...RULES.flatMap((r, i) => r.keys.map((k) => makeKey(k, i))),
  // U+27E6 and U+301A: the anchor is fixed to a byte that is rare in text (the lead bytes are not).
  { bytes: Uint8Array.of(0xe2, 0x9f, 0xa6), anchor: 1, rule: LOOKALIKE },
  { bytes: Uint8Array.of(0xe3, 0x80, 0x9a), anchor: 2, rule: LOOKALIKE },
];

/** Keys by anchor byte: ANCHORS[b] is 0, or 1 + the index of b's key list. */
const ANCHORS = new Uint8Array(256);
const KEYS_BY_ANCHOR: Key[][] = [];
/**
 * Per anchor: the bytes its keys allow just before and just after it (256 entries each, 1 = some
 * key allows it), so most anchors that are ordinary letters are passed over after two lookups.
 */
const NEIGHBOURS: Uint8Array[] = [];
for (const k of KEYS) {
  const b = k.bytes[k.anchor];
  if (ANCHORS[b] === 0) {
    KEYS_BY_ANCHOR.push([]);
    NEIGHBOURS.push(new Uint8Array(512));
    ANCHORS[b] = KEYS_BY_ANCHOR.length;
  }
  const slot = ANCHORS[b] - 1;
  KEYS_BY_ANCHOR[slot].push(k);
  const n = NEIGHBOURS[slot];
  if (k.anchor > 0) n[k.bytes[k.anchor - 1]] = 1;
  else for (let b = 0; b < 256; b++) if (!k.wordStart || !WORD(b)) n[b] = 1;
  if (k.anchor === k.bytes.length - 1) n.fill(1, 256, 512);
  else n[256 + k.bytes[k.anchor + 1]] = 1;
}

/**
 * Calls `hit(rule, start)` for every key found in `bytes[from, end)` (the key may start up to its
 * anchor's index before `from`), in order of position; `rule` is an index into RULES or LOOKALIKE.
 * One table lookup per byte (four at a time), the neighbour test, then the full comparison.
 */
export function findKeys(bytes: Uint8Array, from: number, end: number, hit: (rule: number, start: number) => void): void {
  const stop = end - 3;
  let i = from;
  // Four bytes at a time: most groups hold no anchor at all.
  for (; i < stop; i += 4) {
    if ((ANCHORS[bytes[i]] | ANCHORS[bytes[i + 1]] | ANCHORS[bytes[i + 2]] | ANCHORS[bytes[i + 3]]) === 0) continue;
    for (let j = i; j < i + 4; j++) candidate(bytes, j, end, hit);
  }
  for (; i < end; i++) candidate(bytes, i, end, hit);
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
    while (j < k.bytes.length && bytes[start + j] === k.bytes[j]) j++;
    if (j === k.bytes.length && !(k.wordStart && start > 0 && WORD(bytes[start - 1]))) hit(k.rule, start);
  }
}
