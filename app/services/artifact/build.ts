// Builds an artifact's index (format.ts): reads the raw file in pages (never whole), runs the real
// Sanitizer over it (build-index-run.ts) and writes the page table, checkpoints, minimap and
// removal report, and the columns of the pages stored. A small artifact stores every page (its
// columns written by that same run); a larger one only the pages no replay reaches cheaply (each
// such stretch replayed once after the run, replay.ts), the rest made again when a query needs
// them. Synchronous on purpose: it runs in a worker thread (worker.ts), where blocking reads are
// the fastest way through the file; `shouldCancel` is polled once per page.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants as fsc, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPAN_CLASS_NAMES } from '../../../shared/parser';
import type { RemovalReport } from '../../../shared/sanitize';
import { IndexRun, type RunOutcome } from './build-index-run';
import { mergeRuns, oneRun, type RunParts } from './build-merge';
import { BuildCancelled, type RunColumns, type RunOptions } from './build-run';
import { SECRET_RECORD, SECRET_RULES, SECRETS_FILE, secretsKey, secretsPolicy, spliceSecrets } from './build-secrets';
import { planSegments, SnapshotTable } from './build-snap';
import { ColumnWriter } from './columns';
import { CHECKPOINT_RECORD, FILE_ORDER, INDEX_FORMAT, MANIFEST, MAX_LINE_BYTES, MAX_MEANINGS, SUMS, type IndexFileName, type IndexManifest, type IndexSecrets } from './format';
import { COLUMN_FIELD, COLUMN_RECORD, MAX_REPLAY_PAGES, PAGE_FIELDS, PageField, PageTable, STORED_FIELD, STORED_FILES } from './pages';
import { replayPages } from './replay';
import { trace } from './trace';

export { BuildCancelled };

export interface BuildOptions extends RunOptions {
  /** Empty private directory the files go into (the caller publishes it). */
  readonly outDir: string;
  readonly sha256: string;
  readonly sanitizerFingerprint: string;
  /** Hash the raw bytes while indexing and refuse a file whose digest is not its name (default true). */
  readonly verifyDigest?: boolean;
  /** Store every page's columns (a small artifact: it shows whole after its raw bytes were pruned). */
  readonly storeAll?: boolean;
  /**
   * Segments to cut the file into (default 1: one run; not with storeAll). In this thread they run
   * one after the other, last first (tests of the merge); build-parallel.ts runs them in threads.
   */
  readonly segments?: number;
  readonly onProgress?: (bytesDone: number, spans: number) => void;
}

/** Result the worker hands back to main. */
export interface BuildResult {
  readonly manifest: IndexManifest;
  /** Boundaries where a later segment's run took over (empty for one run, or when none could). */
  readonly splices: readonly number[];
}

/** Builds the index into `o.outDir`; throws BuildCancelled when `shouldCancel` said so. */
export function buildIndex(o: BuildOptions): BuildResult {
  const started = performance.now();
  const size = fileSize(o.rawPath);
  const starts = o.storeAll ? [0] : planSegments(size, o.pageBytes, o.segments ?? 1);
  const table = starts.length > 1 ? new SnapshotTable(Math.ceil(size / o.pageBytes)) : null;
  const runs: IndexRun[] = [];
  const outcomes: RunOutcome[] = [];
  const files = firstRunFiles(o);
  try {
    // Last first: every run past its own end then finds the states of the boundaries it reaches.
    for (let k = starts.length - 1; k >= 1; k--) {
      const run = new IndexRun(o, laterRunSpec(k, starts, table));
      runs.push(run);
      run.run();
      outcomes[k] = run.outcome();
    }
    const hash = o.verifyDigest === false ? null : createHash('sha256');
    const first = new IndexRun(o, { index: 0, starts, table, hash, stored: files.stored, checkpoints: files.checkpoints });
    runs.push(first);
    first.run((pos) => o.onProgress?.(pos, first.spans));
    // Segment 0 hashed what it read; the rest of the file is read for the digest alone.
    if (hash && first.stopAt !== null) hashFile(o.rawPath, first.stopAt, size, hash, o.shouldCancel);
    const parts = table ? mergeRuns(first, outcomes, starts, table, o.pageBytes) : oneRun(first);
    return finishIndex(o, first, parts, files, hash?.digest('hex') ?? null, started);
  } catch (err) {
    files.abandon();
    throw err;
  } finally {
    for (const r of runs) r.dispose();
  }
}

/** The files segment 0's run writes: its checkpoints, and (storeAll) every page's columns. */
export interface FirstRunFiles {
  readonly checkpoints: ColumnWriter;
  readonly stored: RunColumns | null;
  abandon(): void;
}

/** Opens the files segment 0's run writes into `o.outDir`. */
export function firstRunFiles(o: BuildOptions): FirstRunFiles {
  const writers: ColumnWriter[] = [];
  const open = (name: string): ColumnWriter => {
    const w = new ColumnWriter(join(o.outDir, name));
    writers.push(w);
    return w;
  };
  try {
    const checkpoints = open('checkpoints.bin');
    const stored = o.storeAll ? { spans: open(STORED_FILES[0]), text: open(STORED_FILES[1]), map: open(STORED_FILES[2]), lines: open(STORED_FILES[3]) } : null;
    return { checkpoints, stored, abandon: () => writers.forEach((w) => w.abandon()) };
  } catch (err) {
    writers.forEach((w) => w.abandon());
    throw err;
  }
}

/** A later run of a segmented build: checkpoints in memory (handed to the merge), columns counted. */
export function laterRunSpec(k: number, starts: readonly number[], table: SnapshotTable | null, waitMs = 0) {
  return { index: k, starts, table, stored: null, checkpoints: ColumnWriter.memory('keep'), waitMs };
}

/** The size of the raw file (never through a link). */
export function fileSize(path: string): number {
  const fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** Hashes bytes [from, size) of a file in 256 KiB reads (a segmented build's digest of what its first run did not read). */
export function hashFile(path: string, from: number, size: number, hash: Hash, shouldCancel?: () => boolean): void {
  const fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const buf = new Uint8Array(256 << 10);
    let pos = from;
    while (pos < size) {
      if (shouldCancel?.()) throw new BuildCancelled();
      const got = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (got === 0) throw new Error('the raw file ended early (changed while indexing?)');
      hash.update(got === buf.length ? buf : buf.subarray(0, got));
      pos += got;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Stores the pages the index stores (all of them, written by the run, or those no replay
 * reaches), then writes the page table, minimap, checkpoints, sums and manifest. A replayed
 * index's meaning table is sorted (replays and stored pages number meanings by it), so a
 * segmented build, whose runs met the meanings in other orders, writes the files one run writes;
 * a stored index's is the order its run met them in (its spans are numbered so as they are written).
 */
export function finishIndex(o: BuildOptions, first: IndexRun, parts: RunParts, files: FirstRunFiles, digest: string | null, started: number): BuildResult {
  if (digest !== null && digest !== o.sha256) throw new Error('the raw bytes do not match their digest; not indexing them');
  const meanings = files.stored ? first.meanings.meanings : meaningsOf(parts.report);
  if (meanings.length > MAX_MEANINGS) throw new Error(`more than ${MAX_MEANINGS} span meanings: not indexing`);
  const table = new PageTable(parts.pages, o.pageBytes);
  let stored: ColumnWriter[];
  if (files.stored) {
    // Every page stored, its columns where the run wrote them.
    for (let p = 0; p < table.pages; p++) {
      table.f[p * PAGE_FIELDS + PageField.Restart] = -1;
      for (let c = 0; c < 4; c++) table.f[p * PAGE_FIELDS + STORED_FIELD[c]] = table.get(p, COLUMN_FIELD[c]) * COLUMN_RECORD[c];
    }
    const s = files.stored;
    stored = [s.spans!, s.text, s.map, s.lines];
  } else {
    stored = storePages(o, table, meanings);
  }
  const pagesOut = new ColumnWriter(join(o.outDir, 'pages.bin'));
  pagesOut.write(new Uint8Array(table.f.buffer, table.f.byteOffset, table.f.byteLength));
  const minimapOut = new ColumnWriter(join(o.outDir, 'minimap.bin'));
  minimapOut.write(new Uint8Array(parts.minimap.buffer, parts.minimap.byteOffset, parts.minimap.byteLength));
  const secretsOut = new ColumnWriter(join(o.outDir, SECRETS_FILE));
  const byRule = spliceSecrets(parts.secrets, table, replaySource(o, table, meanings), secretsPolicy(o.secrets), secretsOut);
  const secrets: IndexSecrets = { key: o.secrets?.key ?? secretsKey(null), rules: SECRET_RULES, count: secretsOut.bytes / SECRET_RECORD, byRule };
  const writers: Record<IndexFileName, ColumnWriter> = {
    'pages.bin': pagesOut,
    'stored-spans.bin': stored[0], 'stored-text.bin': stored[1], 'stored-map.bin': stored[2], 'stored-lines.bin': stored[3],
    'minimap.bin': minimapOut,
    'checkpoints.bin': files.checkpoints,
    'secrets.bin': secretsOut,
  };
  const sizes = {} as Record<IndexFileName, number>;
  const sums: number[] = [];
  for (const name of FILE_ORDER) {
    const { bytes, sums: s } = writers[name].close();
    sizes[name] = bytes;
    sums.push(...s);
  }
  const manifest = writeManifest(o, parts, meanings, secrets, sizes, sums, digest, started);
  trace?.('index written');
  return { manifest, splices: parts.splices };
}

/**
 * The meanings spans of the artifact have, sorted: the report counts every span under
 * `class: meaning` (a run that counts spans does not number them: the report already has them).
 */
export function meaningsOf(report: RemovalReport): string[] {
  const out = new Set<string>();
  for (const [key, n] of Object.entries(report.meanings)) {
    if (n <= 0) continue;
    const cls = SPAN_CLASS_NAMES.find((c) => key.startsWith(`${c}: `));
    if (cls === undefined) throw new Error(`report meaning without a class: ${key} (internal error)`);
    out.add(key.slice(cls.length + 2));
  }
  return [...out].sort();
}

/**
 * Replays each stretch of pages marked stored (Restart -1) from the last page before it a replay can
 * start at, once, and appends their columns to the stored files; the records get where. Stretches
 * never share a replay (the page after a stretch is within reach of a later start), so this reads
 * each page at most MAX_REPLAY_PAGES + 1 times in all: linear.
 */
function storePages(o: BuildOptions, table: PageTable, meanings: readonly string[]): ColumnWriter[] {
  const out = STORED_FILES.map((name) => new ColumnWriter(join(o.outDir, name)));
  const src = replaySource(o, table, meanings);
  const n = table.pages;
  let p = 0;
  while (p < n) {
    if (table.get(p, PageField.Restart) >= 0) {
      p++;
      continue;
    }
    let end = p;
    while (end + 1 < n && table.get(end + 1, PageField.Restart) < 0) end++;
    const from = table.replayStart(p);
    if (o.shouldCancel?.()) throw new BuildCancelled();
    const cols = replayPages(src, from, end);
    for (let q = p; q <= end; q++) {
      const page = cols[q - from];
      const parts = [page.spans, page.text, page.map, page.lines];
      for (let c = 0; c < 4; c++) {
        table.f[q * PAGE_FIELDS + STORED_FIELD[c]] = out[c].bytes;
        out[c].write(parts[c]);
      }
    }
    trace?.(`stored pages ${p}..${end} (replayed from ${from})`);
    p = end + 1;
  }
  return out;
}

/** What a replay of the index being built needs. */
function replaySource(o: BuildOptions, table: PageTable, meanings: readonly string[]) {
  return {
    rawPath: o.rawPath, sha256: o.sha256, sanitizerFingerprint: o.sanitizerFingerprint, sanitizer: o.sanitizer, pageBytes: o.pageBytes,
    maxLineBytes: o.maxLineBytes ?? MAX_LINE_BYTES, meanings, table,
  };
}

/** Writes sums.bin and the manifest of a build whose files are complete. */
function writeManifest(
  o: BuildOptions, parts: RunParts, meanings: readonly string[], secrets: IndexSecrets, files: Record<IndexFileName, number>, sums: number[], digest: string | null, started: number,
): IndexManifest {
  const sumsBytes = new Uint8Array(Uint32Array.from(sums).buffer);
  writeFileSync(join(o.outDir, SUMS), sumsBytes, { mode: 0o600, flag: 'wx' });
  const manifest: IndexManifest = {
    format: INDEX_FORMAT,
    sanitizerFingerprint: o.sanitizerFingerprint,
    sha256: o.sha256,
    size: parts.size,
    sanitizer: o.sanitizer,
    pageBytes: o.pageBytes,
    maxLineBytes: o.maxLineBytes ?? MAX_LINE_BYTES,
    replayPages: MAX_REPLAY_PAGES,
    minimap: parts.mini,
    counts: { ...parts.counts, checkpoints: files['checkpoints.bin'] / CHECKPOINT_RECORD },
    monotonic: parts.monotonic,
    endsOrdered: parts.endsOrdered,
    meanings,
    report: { ...parts.report, sha256: digest !== null ? o.sha256 : parts.report.sha256 },
    secrets,
    files,
    sumsSha256: createHash('sha256').update(sumsBytes).digest('hex'),
    builtMs: Math.round(performance.now() - started),
    createdAt: new Date().toISOString(),
  };
  writeFileSync(join(o.outDir, MANIFEST), JSON.stringify(manifest), { mode: 0o600, flag: 'wx' });
  return manifest;
}
