// Searches: sanitized text (text.bin, hits mapped to raw offsets) and raw bytes within a granted
// range (hex with `??` wildcards, or text). Both stream their file in chunks whose reads overlap by
// the pattern length minus one, so a hit across a chunk edge is found exactly once, and match in
// time linear in each chunk (fold.ts). The service runs them in worker threads, never in main.
import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { MAX_SEARCH_HITS } from '../../../shared/bridge/limits';
import type { SearchHits } from '../../../shared/bridge/types';
import { BridgeError } from '../bridge/errors';
import { Budget } from './budget';
import { MapCursor } from './queries';
import { searchTextLazy } from './lazy-search';
import { compileMasked, failureTable, foldQuery, MAX_BYTES_PER_FOLDED_BYTE, MAX_MASKED_BYTES, scanBytes, scanFolded, scanMasked, type MaskedPattern } from './fold';
import type { IndexReader } from './reader';
import { SecretCursor } from './secret-column';

export const SEARCH_CHUNK = 4 << 20;

/** A byte pattern with a mask (0 = wildcard byte). */
export interface BytePattern {
  readonly bytes: Uint8Array;
  readonly mask: Uint8Array;
}

/** `1b 5d ?? 3b`, `1b5d??3b`, `\x1b` not accepted: pairs of hex digits or `??`, spaces ignored. */
export function parseHexPattern(pattern: string): BytePattern {
  const compact = pattern.replace(/[\s,]+/g, '').replace(/^0x/i, '');
  if (compact.length === 0 || compact.length % 2 !== 0 || !/^(?:[0-9a-fA-F]{2}|\?\?)+$/.test(compact)) {
    throw new BridgeError('bad-request', 'a hex pattern is pairs of hex digits or ?? (wildcard), e.g. 1b 5d ?? 3b');
  }
  const n = compact.length / 2;
  const bytes = new Uint8Array(n);
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const pair = compact.slice(2 * i, 2 * i + 2);
    if (pair !== '??') {
      bytes[i] = parseInt(pair, 16);
      mask[i] = 1;
    }
  }
  return { bytes, mask };
}

export function literalPattern(bytes: Uint8Array): BytePattern {
  return { bytes, mask: new Uint8Array(bytes.length).fill(1) };
}

/**
 * Finds every match start in `hay[0, limit)` (matches may extend past limit into the overlap),
 * in time linear in `hay`: KMP for a pattern without wildcards, Shift-And for one with them.
 */
class RawMatcher {
  readonly allWild: boolean;
  private readonly literal: { needle: Uint8Array; fail: Int32Array } | null;
  private readonly masked: MaskedPattern | null;

  constructor(private readonly p: BytePattern) {
    if (p.bytes.length > MAX_MASKED_BYTES) throw new BridgeError('bad-request', `a raw search pattern is at most ${MAX_MASKED_BYTES} bytes`);
    this.allWild = p.mask.every((m) => m === 0);
    const literal = p.mask.every((m) => m === 1);
    this.literal = literal ? { needle: p.bytes, fail: failureTable(p.bytes) } : null;
    this.masked = literal || this.allWild ? null : compileMasked(p.bytes, p.mask);
  }

  get length(): number {
    return this.p.bytes.length;
  }

  /** Calls `hit(i)` for match starts i in [0, limit) with the whole match inside hay. */
  scan(hay: Buffer, limit: number, hit: (i: number) => void): void {
    const last = Math.min(limit, hay.length - this.length + 1);
    if (last <= 0) return;
    if (this.allWild) {
      for (let i = 0; i < last; i++) hit(i);
      return;
    }
    if (this.literal) scanBytes(this.literal.needle, this.literal.fail, hay, last, hit);
    else scanMasked(this.masked!, hay, last, hit);
  }
}

/** Streams `read(pos, len)` over [start, end) in overlapping chunks; returns hit offsets. */
async function streamSearch(
  matcher: RawMatcher, start: number, end: number, read: (pos: number, len: number) => Promise<Buffer>,
  onHit: (pos: number) => Promise<void> | void,
  budget: { total: number },
): Promise<void> {
  const len = matcher.length;
  if (matcher.allWild) {
    // Every position matches: count them, list the first ones.
    budget.total = Math.max(0, end - start - len + 1);
    for (let i = 0; i < Math.min(budget.total, MAX_SEARCH_HITS); i++) await onHit(start + i);
    return;
  }
  for (let pos = start; pos + len <= end; pos += SEARCH_CHUNK) {
    const want = Math.min(SEARCH_CHUNK + len - 1, end - pos);
    const hay = await read(pos, want);
    const found: number[] = [];
    matcher.scan(hay, Math.min(SEARCH_CHUNK, hay.length), (i) => {
      if (++budget.total <= MAX_SEARCH_HITS) found.push(pos + i);
    });
    for (const f of found) await onHit(f);
  }
}

/** ASCII case folding in place (A-Z -> a-z); other bytes unchanged. */
export function foldAscii(b: Uint8Array): void {
  let i = 0;
  const head = (4 - (b.byteOffset & 3)) & 3;
  for (; i < head && i < b.length; i++) b[i] = foldByte(b[i]);
  const words = (b.length - i) >>> 2;
  if (words > 0) {
    // Four bytes at a time: for bytes below 0x80, +0x3f sets bit 7 from 'A' up and +0x25 from
    // 'Z'+1 up (no carries: the high bits are masked off first); bytes >= 0x80 are excluded.
    const w = new Uint32Array(b.buffer, b.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const v = w[k];
      const x = v & 0x7f7f7f7f;
      const upper = ((x + 0x3f3f3f3f) & ~(x + 0x25252525) & ~v & 0x80808080) >>> 0;
      if (upper !== 0) w[k] = (v | (upper >>> 2)) >>> 0;
    }
    i += words * 4;
  }
  for (; i < b.length; i++) b[i] = foldByte(b[i]);
}

function foldByte(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

/** How sanitized text is matched (plain data: a lazy index's search sends it to worker threads). */
export type TextMatch =
  | { readonly kind: 'bytes'; readonly needle: Uint8Array; readonly fold: boolean }
  /** The query case-folded per code point (fold.ts), matched against the text folded the same way. */
  | { readonly kind: 'unicode'; readonly needle: Uint8Array; readonly maxBytes: number };

/**
 * The matcher for `query`. Case-insensitive matching folds ASCII letters on bytes (both sides
 * folded, then a byte search); a query with other cased letters matches Unicode case variants:
 * both sides are folded per code point (fold.ts), so a hit may be longer or shorter than the
 * query in bytes (`ß` and `SS`; `hitLength` stays the query's length). Either way the search is
 * linear in the text, whatever the query (fold.ts scanFolded).
 */
export function textMatch(query: string, caseSensitive: boolean): TextMatch {
  if (!caseSensitive && [...query].some((ch) => ch > '\x7f' && (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch))) {
    const needle = foldQuery(query);
    return { kind: 'unicode', needle, maxBytes: MAX_BYTES_PER_FOLDED_BYTE * needle.length };
  }
  // Folding: ASCII letters only, on both sides, so a byte search of the folded needle in the
  // folded text finds exactly the case-insensitive matches (UTF-8 lead/continuation bytes are
  // >= 0x80 and never change).
  const needle = Buffer.from(query, 'utf8');
  const fold = !caseSensitive && /[A-Za-z]/.test(query);
  if (fold) foldAscii(needle);
  return { kind: 'bytes', needle, fold };
}

/** Bytes a hit can span: a chunk edge needs this minus one bytes of overlap. */
export function matchSpan(m: TextMatch): number {
  return m.kind === 'bytes' ? m.needle.length : m.maxBytes;
}

/** The byte length a hit is reported with (the query's). */
export function hitLengthOf(m: TextMatch, query: string): number {
  return m.kind === 'bytes' ? m.needle.length : Buffer.byteLength(query, 'utf8');
}

/** A compiled {@link TextMatch}: its failure table, made once per search. */
export interface TextMatcher {
  readonly m: TextMatch;
  readonly fail: Int32Array;
}

export function compileMatch(m: TextMatch): TextMatcher {
  return { m, fail: failureTable(m.needle) };
}

/**
 * Calls `hit(i)` for every match start `i` in `hay` below `limit`, in order, overlapping ones too.
 * `hay` must be folded already for a folding byte match. Linear in `hay.length` (no backtracking).
 */
export function matchStarts(c: TextMatcher, hay: Buffer, limit: number, hit: (i: number) => void): void {
  if (c.m.kind === 'bytes') scanBytes(c.m.needle, c.fail, hay, limit, hit);
  else scanFolded(c.m.needle, c.fail, hay, limit, hit);
}

/**
 * Sanitized-text search (see {@link textMatch}). Hits are the raw offsets of the matched text's
 * first bytes, ascending. A lazy index has its text only as replayed pages: it re-sanitizes, in
 * parallel where it pays (lazy-search.ts).
 */
export async function searchText(r: IndexReader, query: string, caseSensitive: boolean, workerScript: string | null = null, budget = Budget.none): Promise<SearchHits> {
  if (r.pages) return searchTextLazy(r, query, caseSensitive, workerScript, undefined, budget);
  const started = performance.now();
  const m = textMatch(query, caseSensitive);
  const matcher = compileMatch(m);
  const fold = m.kind === 'bytes' && m.fold;
  const overlap = matchSpan(m) - 1;
  const text = r.files['text.bin'];
  const cursor = new MapCursor(r);
  // A hit that touches a suspected secret is neither listed nor counted: without a grant, a search
  // must tell nothing about a secret's value (not even that a guess of it occurs).
  const secrets = new SecretCursor(r.secretColumn);
  const span = matchSpan(m);
  const hits: number[] = [];
  let total = 0;
  const scratch = fold ? Buffer.alloc(SEARCH_CHUNK + overlap) : null;
  try {
    for (let pos = 0; pos < text.size; pos += SEARCH_CHUNK) {
      budget.check();
      let hay = await text.read(pos, Math.min(SEARCH_CHUNK + overlap, text.size - pos));
      if (scratch) {
        // Never fold in place: small reads are views of the verified block cache.
        hay.copy(scratch);
        hay = scratch.subarray(0, hay.length);
        foldAscii(hay);
      }
      const found: number[] = [];
      matchStarts(matcher, hay, Math.min(SEARCH_CHUNK, hay.length), (i) => {
        if (secrets.touches(pos + i, pos + i + span)) return;
        if (++total <= MAX_SEARCH_HITS) found.push(pos + i);
      });
      for (const t of found) hits.push(await cursor.rawOf(t));
    }
  } finally {
    secrets.close();
  }
  return { hits, hitLength: hitLengthOf(m, query), total, complete: total <= MAX_SEARCH_HITS, elapsedMs: Math.round(performance.now() - started) };
}

/** Raw search over `[range[0], range[1])` (or the whole file) of the raw file at `path`. */
export async function searchRaw(path: string, size: number, range: readonly [number, number] | null, query: { mode: 'hex' | 'text'; pattern: string }, time = Budget.none): Promise<SearchHits> {
  const started = performance.now();
  const pattern = query.mode === 'hex' ? parseHexPattern(query.pattern) : literalPattern(Buffer.from(query.pattern, 'utf8'));
  const matcher = new RawMatcher(pattern);
  const start = Math.max(0, range ? range[0] : 0);
  const end = Math.min(size, range ? range[1] : size);
  const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW).catch((err: unknown) => {
    if ((err as { code?: string }).code === 'ENOENT') throw new BridgeError('not-found', 'the raw bytes are no longer in the vault (pruned?)');
    throw err;
  });
  const hits: number[] = [];
  const budget = { total: 0 };
  const buf = Buffer.allocUnsafe(SEARCH_CHUNK + matcher.length);
  try {
    await streamSearch(matcher, start, end, async (pos, len) => {
      time.check();
      let got = 0;
      while (got < len) {
        const { bytesRead } = await fh.read(buf, got, len - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    }, (pos) => {
      if (hits.length < MAX_SEARCH_HITS) hits.push(pos);
    }, budget);
  } finally {
    await fh.close();
  }
  return { hits, hitLength: matcher.length, total: budget.total, complete: budget.total <= MAX_SEARCH_HITS, elapsedMs: Math.round(performance.now() - started) };
}
