// Queries over the secrets of an artifact's text (secret-column.ts) in raw terms: which suspected
// secrets lie in a stretch of raw bytes, with each one's raw extent (the offset map's image of its
// text), and their values, which main asks for only within a caller's grant.
import type { SecretInfo, SecretValue } from '../../../shared/bridge/types';
import { Budget } from './budget';
import { secretsInText } from './secret-column';
import { lastSegAtOrBefore, lineOf, lineStart, secretInfo, segmentsFrom } from './queries';
import type { IndexReader } from './reader';

/** Most secrets one answer lists. */
export const MAX_SECRETS_PER_CALL = 5_000;
/** Characters of a secret's value handed out at most (a private key block is ~3,000). */
export const MAX_SECRET_VALUE_CHARS = 16_384;

/** Lines either side of the ones a raw range falls in that overwrite mode also looks at (its text is reordered within lines). */
const OVERWRITE_REACH = 8;

/**
 * The secrets whose raw extent overlaps raw `[a, b)`, by raw offset, at most `limit` (hex marks, a
 * review's overlap warning). The text window comes from the map: in newline mode raw and text
 * ascend together; in overwrite mode lines do, so the lines around the range are searched.
 */
export async function secretsInRaw(r: IndexReader, a: number, b: number, limit = MAX_SECRETS_PER_CALL, budget = Budget.none): Promise<SecretInfo[]> {
  if (r.manifest.secrets.count === 0 || b <= a) return [];
  const m = r.manifest.counts;
  let t0: number;
  let t1: number;
  const sa = await lastSegAtOrBefore(r, a, 1);
  const sb = await lastSegAtOrBefore(r, Math.max(a, b - 1), 1);
  if (sb < 0) return [];
  if (r.manifest.monotonic) {
    // Segments ascend in raw and text: text before the segment ahead of `a`'s came from bytes
    // before `a`, text after `b - 1`'s from bytes after it (one segment's margin: a replaced
    // segment can share its raw byte with the one before).
    t0 = sa > 0 ? (await segmentsFrom(r, sa - 1, 1))[0].textStart : 0;
    t1 = (await segmentsFrom(r, sb, 1))[0].textEnd;
  } else {
    const segA = sa >= 0 ? (await segmentsFrom(r, sa, 1))[0] : null;
    const segB = (await segmentsFrom(r, sb, 1))[0];
    const la = Math.max(0, (segA ? await lineOf(r, segA.textStart) : 0) - OVERWRITE_REACH);
    const lb = Math.min(m.lines, (await lineOf(r, segB.textStart)) + OVERWRITE_REACH + 1);
    t0 = await lineStart(r, la);
    t1 = await lineStart(r, lb);
  }
  const out: SecretInfo[] = [];
  for (const s of await secretsInText(r, t0, t1, Infinity, budget)) {
    const info = await secretInfo(r, s);
    if (info.offset < b && info.offset + info.length > a) out.push(info);
    if (out.length >= limit) break;
  }
  return out.sort((x, y) => x.offset - y.offset);
}

/**
 * The values of the secrets whose raw extent overlaps raw `[a, b)` and lies wholly inside `[lo, hi)`
 * (a grant's range): the text they stand for in the sanitized text (inert: it is that text), at
 * most MAX_SECRET_VALUE_CHARS characters each. Main calls this only for a caller's grant.
 */
export async function secretValues(r: IndexReader, a: number, b: number, lo: number, hi: number, budget = Budget.none): Promise<SecretValue[]> {
  if (Math.max(a, lo) >= Math.min(b, hi)) return [];
  const out: SecretValue[] = [];
  for (const s of await secretsInRaw(r, Math.max(a, lo), Math.min(b, hi), MAX_SECRETS_PER_CALL, budget)) {
    if (s.offset < lo || s.offset + s.length > hi) continue;
    const bytes = await r.files['text.bin'].read(s.textOffset, s.textLength);
    const text = new TextDecoder().decode(bytes);
    const truncated = text.length > MAX_SECRET_VALUE_CHARS;
    out.push({ index: s.index, rule: s.rule, offset: s.offset, length: s.length, value: truncated ? text.slice(0, MAX_SECRET_VALUE_CHARS) : text, truncated });
  }
  return out;
}

