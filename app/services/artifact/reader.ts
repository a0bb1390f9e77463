// Reads a published index with positional reads only: every read goes through 64 KiB blocks whose
// CRC-32 is checked against sums.bin before a byte is used, with a small LRU of verified blocks so
// binary searches touch the disk a few times. Nothing reads a whole column into memory except the
// small ones (checkpoints, minimap: kilobytes to a few MB).
import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { SPAN_CLASS_COUNT } from '../../../shared/parser';
import {
  BLOCK_BYTES, blockCount, CHECKPOINT_RECORD, FILE_ORDER, INDEX_FORMAT, MANIFEST, SUMS, type IndexFile, type IndexManifest, type IndexSanitizerOptions,
} from './format';
import { SECRET_RECORD } from './build-secrets';
import { LazyColumn, PageStore, type ColumnFile } from './lazy-columns';
import type { SecretColumnRef } from './secret-column';
import { COLUMN_FIELD, PAGE_RECORD, PageField, PageTable, STORED_FILES } from './pages';

/** The index is damaged (or not the one expected): rebuild it, never trust it. */
export class IndexCorrupt extends Error {
  constructor(message: string) {
    super(message);
  }
}

const CACHE_BLOCKS = 256; // 16 MiB of verified blocks per file at most
const READ_AHEAD_BLOCKS = 4;

/** One index file, read and verified block by block. */
export class BlockFile {
  private readonly cache = new Map<number, Buffer>();

  constructor(
    readonly name: string,
    private readonly fh: FileHandle,
    readonly size: number,
    private readonly sums: Uint32Array,
    private readonly onCorrupt: (why: string) => void,
  ) {}

  /** Bytes `[pos, pos + len)` (clipped to the file), verified. Small reads share cached blocks. */
  async read(pos: number, len: number): Promise<Buffer> {
    const end = Math.min(this.size, pos + len);
    if (pos >= end) return Buffer.alloc(0);
    const first = Math.floor(pos / BLOCK_BYTES);
    const last = Math.floor((end - 1) / BLOCK_BYTES);
    if (first === last) {
      const block = await this.block(first);
      const o = pos - first * BLOCK_BYTES;
      return block.subarray(o, o + (end - pos));
    }
    if (last - first < 4) {
      const parts: Buffer[] = [];
      for (let b = first; b <= last; b++) parts.push(await this.block(b));
      const joined = Buffer.concat(parts);
      const o = pos - first * BLOCK_BYTES;
      return joined.subarray(o, o + (end - pos));
    }
    // A long read: one positional read of the whole aligned span, every block verified, not cached.
    const start = first * BLOCK_BYTES;
    const stop = Math.min(this.size, (last + 1) * BLOCK_BYTES);
    const buf = Buffer.allocUnsafe(stop - start);
    await this.readFully(buf, start);
    for (let b = first; b <= last; b++) this.verify(b, buf.subarray((b - first) * BLOCK_BYTES, Math.min(buf.length, (b - first + 1) * BLOCK_BYTES)));
    return buf.subarray(pos - start, end - start);
  }

  async f64(index: number): Promise<number> {
    return (await this.read(index * 8, 8)).readDoubleLE(0);
  }

  private async block(b: number): Promise<Buffer> {
    const hit = this.cache.get(b);
    if (hit) {
      this.cache.delete(b);
      this.cache.set(b, hit);
      return hit;
    }
    // Read ahead: searches gallop forward through neighbouring blocks, and one read of four
    // blocks costs about what one costs on a cold disk.
    const start = b * BLOCK_BYTES;
    let count = 1;
    while (count < READ_AHEAD_BLOCKS && start + count * BLOCK_BYTES < this.size && !this.cache.has(b + count)) count++;
    const all = Buffer.allocUnsafe(Math.min(count * BLOCK_BYTES, this.size - start));
    await this.readFully(all, start);
    for (let k = count - 1; k >= 0; k--) {
      const block = all.subarray(k * BLOCK_BYTES, Math.min(all.length, (k + 1) * BLOCK_BYTES));
      this.verify(b + k, block);
      this.cache.set(b + k, block);
    }
    while (this.cache.size > CACHE_BLOCKS) this.cache.delete(this.cache.keys().next().value as number);
    return this.cache.get(b) as Buffer;
  }

  private async readFully(buf: Buffer, at: number): Promise<void> {
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await this.fh.read(buf, got, buf.length - got, at + got);
      if (bytesRead === 0) {
        const why = `${this.name} is shorter than its manifest says`;
        this.onCorrupt(why);
        throw new IndexCorrupt(why);
      }
      got += bytesRead;
    }
  }

  private verify(b: number, data: Buffer): void {
    if (crc32(data) !== this.sums[b]) {
      const why = `${this.name} block ${b} fails its checksum`;
      this.onCorrupt(why);
      throw new IndexCorrupt(why);
    }
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

/** What the cache must match to be used for an artifact. */
export interface IndexExpectation {
  readonly sha256: string;
  /** Raw size, or null when the raw bytes were pruned (the cache is then used as it is). */
  readonly size: number | null;
  readonly sanitizerFingerprint: string;
  readonly sanitizer: IndexSanitizerOptions;
  readonly pageBytes: number;
  readonly maxLineBytes: number;
  /** The raw file, to replay pages from (absent: only an index that stores every page can be opened). */
  readonly rawPath?: string;
  /** What its secrets column must have been made with (build-secrets.ts secretsKey: rule set and allowlist). */
  readonly secretsKey: string;
}

/** An open, validated index. */
export class IndexReader {
  private constructor(
    readonly dir: string,
    readonly manifest: IndexManifest,
    readonly files: Readonly<Record<IndexFile, ColumnFile>>,
    /** Checkpoints, read whole (48 bytes a MiB of raw). */
    readonly checkpoints: Float64Array,
    private readonly corrupt: { why: string | null },
    /** The files open (the columns are read through the page store). */
    private readonly handles: readonly BlockFile[],
    /** The pages, when some are replayed (null: every page is stored, its columns read like files). */
    readonly pages: PageStore | null,
    /** The secrets column as a search thread reads it (its own synchronous, verified reads). */
    readonly secretColumn: SecretColumnRef,
  ) {}

  /** Set once a read found a bad block: the service drops and rebuilds the index. */
  get corruption(): string | null {
    return this.corrupt.why;
  }

  /**
   * Opens the index in `dir` if its manifest matches `expect`, every file has the size it records
   * and sums.bin has the digest the manifest holds; otherwise throws IndexCorrupt (or ENOENT).
   */
  static async open(dir: string, expect: IndexExpectation): Promise<IndexReader> {
    const text = await readFile(join(dir, MANIFEST), { encoding: 'utf8', flag: fsc.O_RDONLY | fsc.O_NOFOLLOW });
    let manifest: IndexManifest;
    try {
      manifest = JSON.parse(text) as IndexManifest;
    } catch {
      throw new IndexCorrupt('manifest is not JSON');
    }
    checkManifest(manifest, expect);
    const sumsBytes = await readFile(join(dir, SUMS), { flag: fsc.O_RDONLY | fsc.O_NOFOLLOW });
    if (createHash('sha256').update(sumsBytes).digest('hex') !== manifest.sumsSha256) throw new IndexCorrupt('sums.bin does not match the manifest');
    if (sumsBytes.length % 4 !== 0) throw new IndexCorrupt('sums.bin has a torn entry');
    const allSums = new Uint32Array(new Uint8Array(sumsBytes).buffer, 0, sumsBytes.length / 4);
    const corrupt = { why: null as string | null };
    const onCorrupt = (why: string): void => {
      corrupt.why ??= why;
    };
    const opened: Record<string, BlockFile> = {};
    let sumAt = 0;
    let secretSums = new Uint32Array(0);
    try {
      for (const name of FILE_ORDER) {
        const size = manifest.files[name];
        const blocks = blockCount(size);
        if (sumAt + blocks > allSums.length) throw new IndexCorrupt('sums.bin is short');
        const fh = await open(join(dir, name), fsc.O_RDONLY | fsc.O_NOFOLLOW);
        opened[name] = new BlockFile(name, fh, size, allSums.subarray(sumAt, sumAt + blocks), onCorrupt);
        if (name === 'secrets.bin') secretSums = allSums.slice(sumAt, sumAt + blocks);
        sumAt += blocks;
        const st = await fh.stat();
        if (st.size !== size) throw new IndexCorrupt(`${name} has ${st.size} bytes, the manifest says ${size}`);
      }
      if (sumAt !== allSums.length) throw new IndexCorrupt('sums.bin has extra entries');
      const cp = opened['checkpoints.bin'];
      const raw = await cp.read(0, cp.size);
      const checkpoints = new Float64Array(new Uint8Array(raw).buffer, 0, cp.size / 8);
      if (cp.size !== manifest.counts.checkpoints * CHECKPOINT_RECORD) throw new IndexCorrupt('checkpoint count mismatch');
      const pt = opened['pages.bin'];
      const pagesRaw = await pt.read(0, pt.size);
      const table = new PageTable(new Float64Array(new Uint8Array(pagesRaw).buffer, 0, pt.size / 8), manifest.pageBytes);
      checkPages(manifest, table);
      const replayed = table.replays();
      if (replayed && expect.rawPath === undefined) throw new IndexCorrupt('an index whose pages are replayed needs its raw bytes');
      const store = new PageStore({
        rawPath: expect.rawPath ?? '', sha256: manifest.sha256, sanitizerFingerprint: manifest.sanitizerFingerprint, sanitizer: manifest.sanitizer, pageBytes: manifest.pageBytes,
        maxLineBytes: manifest.maxLineBytes, meanings: manifest.meanings, table,
      }, STORED_FILES.map((n) => opened[n]), onCorrupt);
      const files: Record<IndexFile, ColumnFile> = {
        'spans.bin': new LazyColumn(store, 0), 'text.bin': new LazyColumn(store, 1), 'map.bin': new LazyColumn(store, 2), 'lines.bin': new LazyColumn(store, 3),
        'minimap.bin': opened['minimap.bin'], 'checkpoints.bin': cp, 'secrets.bin': opened['secrets.bin'],
      };
      const secretColumn = { path: join(dir, 'secrets.bin'), size: manifest.files['secrets.bin'], sums: secretSums };
      return new IndexReader(dir, manifest, files, checkpoints, corrupt, Object.values(opened), replayed ? store : null, secretColumn);
    } catch (err) {
      await Promise.all(Object.values(opened).map((f) => f.close().catch(() => undefined)));
      throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.handles.map((f) => f.close().catch(() => undefined)));
  }
}

/** The page table agrees with its manifest (counts at the end; restarts that exist). */
function checkPages(m: IndexManifest, t: PageTable): void {
  const n = t.pages;
  const end = COLUMN_FIELD.map((f) => t.get(n, f));
  const c = m.counts;
  if (end[0] !== c.spans || end[1] !== c.textBytes || end[2] !== c.segments || end[3] !== c.lines) throw new IndexCorrupt('page table counts differ from the manifest');
  for (let p = 0; p < n; p++) {
    const r = t.get(p, PageField.Restart);
    if (r >= 0 && (!Number.isSafeInteger(r) || r > p || p - r > m.replayPages || (r > 0 && t.get(r, PageField.Neutral) !== 1))) throw new IndexCorrupt(`page ${p} has a bad restart`);
    for (const f of COLUMN_FIELD) if (t.get(p + 1, f) < t.get(p, f)) throw new IndexCorrupt(`page ${p} counts go back`);
  }
}

function checkManifest(m: IndexManifest, expect: IndexExpectation): void {
  const bad = (why: string): never => {
    throw new IndexCorrupt(`stale or damaged index: ${why}`);
  };
  if (typeof m !== 'object' || m === null) bad('manifest is not an object');
  if (m.format !== INDEX_FORMAT) bad(`format ${String(m.format)}, expected ${INDEX_FORMAT}`);
  if (m.sanitizerFingerprint !== expect.sanitizerFingerprint) bad('built by another parser/sanitizer version');
  if (m.sha256 !== expect.sha256) bad('for another artifact');
  if (expect.size !== null && m.size !== expect.size) bad('raw size differs');
  if (!Number.isSafeInteger(m.size) || m.size < 0) bad('bad raw size');
  if (m.pageBytes !== expect.pageBytes) bad('page size differs');
  if (m.maxLineBytes !== expect.maxLineBytes) bad('line width differs');
  if (JSON.stringify(m.sanitizer) !== JSON.stringify(expect.sanitizer)) bad('sanitizer options differ');
  if (typeof m.files !== 'object' || m.files === null) bad('no file table');
  if (!Number.isSafeInteger(m.replayPages) || m.replayPages < 0) bad('bad replay reach');
  for (const name of FILE_ORDER) {
    const v = m.files[name];
    if (v === undefined || !Number.isSafeInteger(v) || v < 0) bad(`no size for ${name}`);
  }
  const c = m.counts;
  if (!c || ![c.spans, c.textBytes, c.lines, c.segments, c.checkpoints].every((v) => Number.isSafeInteger(v) && v >= 0)) bad('bad counts');
  if (m.files['pages.bin'] !== (Math.ceil(m.size / m.pageBytes) + 1) * PAGE_RECORD) bad('page table size does not match the raw size');
  if (!Array.isArray(m.meanings) || !m.meanings.every((s) => typeof s === 'string')) bad('bad meaning table');
  if (!m.minimap || m.files['minimap.bin'] !== m.minimap.buckets * SPAN_CLASS_COUNT * 4) bad('bad minimap geometry');
  // Text is served redacted by this column: one made with other rules or another allowlist is stale.
  if (!m.secrets || m.secrets.key !== expect.secretsKey) bad('secrets found with another rule set or allowlist');
  if (!Array.isArray(m.secrets.rules) || !m.secrets.rules.every((s) => typeof s === 'string')) bad('bad secret rule table');
  if (!Number.isSafeInteger(m.secrets.count) || m.files['secrets.bin'] !== m.secrets.count * SECRET_RECORD) bad('secret count does not match its column');
}
