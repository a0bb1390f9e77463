// The secrets column (build-secrets.ts, format.ts `secrets.bin`) as queries read it: the records
// in a stretch of text, and a forward cursor that tells a search whether a hit touches one. Rule
// names and text offsets only: the values stay in the text column.
import { closeSync, constants as fsc, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { Budget } from './budget';
import { SECRET_RECORD } from './build-secrets';
import { BLOCK_BYTES } from './format';
import { IndexCorrupt, type IndexReader } from './reader';

/** One record of the column, with its place in it. */
export interface SecretRecord {
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly rule: string;
}

/** Records read per batch. */
const BATCH = 2048;

function decode(r: IndexReader, buf: Buffer, first: number): SecretRecord[] {
  const out: SecretRecord[] = [];
  for (let k = 0; (k + 1) * SECRET_RECORD <= buf.length; k++) {
    const at = k * SECRET_RECORD;
    out.push({ index: first + k, start: buf.readDoubleLE(at), end: buf.readDoubleLE(at + 8), rule: r.manifest.secrets.rules[buf.readDoubleLE(at + 16)] ?? 'unknown' });
  }
  return out;
}

/** First record whose end is past text offset `t` (records are in text order and never overlap, so ends ascend). */
async function firstEndingAfter(r: IndexReader, t: number): Promise<number> {
  const f = r.files['secrets.bin'];
  let lo = 0;
  let hi = r.manifest.secrets.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((await f.read(mid * SECRET_RECORD + 8, 8)).readDoubleLE(0) > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The secrets whose text overlaps `[t0, t1)`, in text order, at most `limit`. */
export async function secretsInText(r: IndexReader, t0: number, t1: number, limit = Infinity, budget = Budget.none): Promise<SecretRecord[]> {
  const n = r.manifest.secrets.count;
  const out: SecretRecord[] = [];
  if (n === 0 || t1 <= t0) return out;
  for (let i = await firstEndingAfter(r, t0); i < n && out.length < limit; i += BATCH) {
    budget.check();
    const batch = decode(r, await r.files['secrets.bin'].read(i * SECRET_RECORD, Math.min(BATCH, n - i) * SECRET_RECORD), i);
    for (const s of batch) {
      if (s.start >= t1 || out.length >= limit) return out;
      out.push(s);
    }
  }
  return out;
}

/** The secrets column as a search thread reads it: its file and block sums (verified as read). */
export interface SecretColumnRef {
  readonly path: string;
  readonly size: number;
  readonly sums: Uint32Array;
}

/**
 * Walks the secrets column forward for a search: whether a hit's text `[a, b)` touches a secret
 * (asked with non-decreasing `a`). Synchronous, with positional reads checked against the
 * column's block sums: a search thread replays text synchronously, and a damaged column is never
 * trusted (IndexCorrupt).
 */
export class SecretCursor {
  private readonly fd: number;
  private readonly n: number;
  private records: Float64Array = new Float64Array(0);
  private first = 0;
  private k = 0;

  constructor(private readonly ref: SecretColumnRef, from = 0) {
    this.n = ref.size / SECRET_RECORD;
    this.fd = this.n > 0 ? openSync(ref.path, fsc.O_RDONLY | fsc.O_NOFOLLOW) : -1;
    if (this.n > 0) this.seek(from);
  }

  /** Whether text `[a, b)` overlaps a secret. */
  touches(a: number, b: number): boolean {
    if (this.n === 0) return false;
    for (;;) {
      while (this.k < this.records.length / 2 && this.records[2 * this.k + 1] <= a) this.k++;
      if (this.k < this.records.length / 2) return this.records[2 * this.k] < b;
      if (this.first + this.records.length / 2 >= this.n) return false;
      this.load(this.first + this.records.length / 2);
    }
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
  }

  /** Positions at the first record ending after text offset `t` (binary search, a record read a step). */
  private seek(t: number): void {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.readRecords(mid, 1)[1] > t) hi = mid;
      else lo = mid + 1;
    }
    this.load(lo);
  }

  private load(first: number): void {
    this.first = first;
    this.records = this.readRecords(first, Math.min(BATCH, this.n - first));
    this.k = 0;
  }

  /** [start, end] of records `first`..`first + count`, read through whole verified blocks. */
  private readRecords(first: number, count: number): Float64Array {
    if (count <= 0) return new Float64Array(0);
    const from = first * SECRET_RECORD;
    const to = (first + count) * SECRET_RECORD;
    const b0 = Math.floor(from / BLOCK_BYTES);
    const b1 = Math.floor((to - 1) / BLOCK_BYTES);
    const start = b0 * BLOCK_BYTES;
    const buf = Buffer.allocUnsafe(Math.min(this.ref.size, (b1 + 1) * BLOCK_BYTES) - start);
    for (let got = 0; got < buf.length;) {
      const n = readSync(this.fd, buf, got, buf.length - got, start + got);
      if (n === 0) throw new IndexCorrupt('secrets.bin is shorter than its manifest says');
      got += n;
    }
    for (let b = b0; b <= b1; b++) {
      const block = buf.subarray((b - b0) * BLOCK_BYTES, Math.min(buf.length, (b - b0 + 1) * BLOCK_BYTES));
      if (crc32(block) !== this.ref.sums[b]) throw new IndexCorrupt(`secrets.bin block ${b} fails its checksum`);
    }
    const out = new Float64Array(2 * count);
    for (let k = 0; k < count; k++) {
      const at = from - start + k * SECRET_RECORD;
      out[2 * k] = buf.readDoubleLE(at);
      out[2 * k + 1] = buf.readDoubleLE(at + 8);
    }
    return out;
  }
}
