// Builds a lazy index (pages.ts): one run of the real Sanitizer over the raw file that writes the
// checkpoints, the minimap, the removal report and a page table instead of the spans, text, map
// and line columns, which on this class of machine cost as much to write as the parse itself. Pages
// a replay could not reach cheaply are then replayed once, in order, and stored.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RemovalReport } from '../../../shared/sanitize';
import { BuildCancelled, SegmentRun, type BuildOptions, type BuildResult } from './build';
import { ColumnWriter } from './columns';
import { CHECKPOINT_RECORD, INDEX_FORMAT, LAZY_FILE_ORDER, MANIFEST, MAX_LINE_BYTES, SUMS, type IndexManifest, type LazyIndexFile } from './format';
import { MAX_REPLAY_PAGES, PAGE_FIELDS, PAGES_FILE, PageField, PageTable, STORED_FILES } from './pages';
import { replayPages } from './replay';
import { trace } from './trace';

/** Builds a lazy index into `o.outDir` in one run; throws BuildCancelled when `shouldCancel` said so. */
export function buildLazyIndex(o: BuildOptions): BuildResult {
  const started = performance.now();
  const hash = o.verifyDigest === false ? null : createHash('sha256');
  const run = new SegmentRun(o, { index: 0, starts: [0], dir: o.outDir, mode: 'lazy' }, null, hash);
  try {
    run.run((pos) => o.onProgress?.(pos, run.spans));
    run.writeEndRecord();
    const digest = hash?.digest('hex') ?? null;
    if (digest !== null && digest !== o.sha256) throw new Error('the raw bytes do not match their digest; not indexing them');
    trace?.('lazy run done');
    return finishLazy(o, run, run.outcome().report, digest, started);
  } finally {
    run.dispose();
  }
}

/**
 * Stores the pages no replay may serve, then writes the page table, minimap, checkpoints, sums and
 * manifest of a lazy build whose run (`first`, all pages' records in `first.pages`) is complete.
 */
export function finishLazy(o: BuildOptions, first: SegmentRun, report: RemovalReport, digest: string | null, started: number): BuildResult {
  const table = new PageTable(concat(first.pages), o.pageBytes);
  const stored = storePages(o, table, first.meanings);
  const pagesOut = new ColumnWriter(join(o.outDir, PAGES_FILE));
  pagesOut.write(new Uint8Array(table.f.buffer, table.f.byteOffset, table.f.byteLength));
  first.writers['minimap.bin'].write(new Uint8Array(first.minimap.buffer));
  const writers: Record<LazyIndexFile, ColumnWriter> = {
    'pages.bin': pagesOut,
    'stored-spans.bin': stored[0], 'stored-text.bin': stored[1], 'stored-map.bin': stored[2], 'stored-lines.bin': stored[3],
    'minimap.bin': first.writers['minimap.bin'],
    'checkpoints.bin': first.writers['checkpoints.bin'],
  };
  const files = {} as Record<LazyIndexFile, number>;
  const sumParts: number[] = [];
  for (const name of LAZY_FILE_ORDER) {
    const { bytes, sums } = writers[name].close();
    files[name] = bytes;
    sumParts.push(...sums);
  }
  const sumsBytes = new Uint8Array(Uint32Array.from(sumParts).buffer);
  writeFileSync(join(o.outDir, SUMS), sumsBytes, { mode: 0o600, flag: 'wx' });
  const manifest: IndexManifest = {
    format: INDEX_FORMAT,
    engine: o.engine,
    sha256: o.sha256,
    size: first.size,
    sanitizer: o.sanitizer,
    pageBytes: o.pageBytes,
    maxLineBytes: o.maxLineBytes ?? MAX_LINE_BYTES,
    minimap: first.mini,
    counts: {
      spans: first.spans,
      textBytes: first.textBytes,
      lines: first.lineCol.count,
      segments: first.mapCol.count,
      checkpoints: files['checkpoints.bin'] / CHECKPOINT_RECORD,
    },
    monotonic: first.mapCol.monotonic,
    endsOrdered: first.endsOrdered,
    meanings: first.meanings,
    report: { ...report, sha256: digest !== null ? o.sha256 : report.sha256 },
    files,
    lazy: { replayPages: MAX_REPLAY_PAGES },
    sumsSha256: createHash('sha256').update(sumsBytes).digest('hex'),
    builtMs: Math.round(performance.now() - started),
    createdAt: new Date().toISOString(),
  };
  writeFileSync(join(o.outDir, MANIFEST), JSON.stringify(manifest), { mode: 0o600, flag: 'wx' });
  trace?.('lazy manifest written');
  return { manifest, splices: [] };
}

/**
 * Replays each stretch of pages marked stored (Restart -1) from the last page before it a replay can
 * start at, once, and appends their columns to the stored files; the records get where. Stretches
 * never share a replay (the page after a stretch is within reach of a later start), so this reads
 * each page at most MAX_REPLAY_PAGES + 1 times in all: linear.
 */
function storePages(o: BuildOptions, table: PageTable, meanings: readonly string[]): ColumnWriter[] {
  const out = STORED_FILES.map((name) => new ColumnWriter(join(o.outDir, name)));
  const src = {
    rawPath: o.rawPath, sha256: o.sha256, engine: o.engine, sanitizer: o.sanitizer, pageBytes: o.pageBytes,
    maxLineBytes: o.maxLineBytes ?? MAX_LINE_BYTES, meanings, table,
  };
  const n = table.pages;
  let p = 0;
  while (p < n) {
    if (table.get(p, PageField.Restart) >= 0) {
      p++;
      continue;
    }
    let end = p;
    while (end + 1 < n && table.get(end + 1, PageField.Restart) < 0) end++;
    let from = p;
    while (from > 0 && table.get(from, PageField.Neutral) !== 1) from--;
    if (o.shouldCancel?.()) throw new BuildCancelled();
    const cols = replayPages(src, from, end);
    for (let q = p; q <= end; q++) {
      const page = cols[q - from];
      const parts = [page.spans, page.text, page.map, page.lines];
      for (let c = 0; c < 4; c++) {
        table.f[q * PAGE_FIELDS + PageField.StoredSpans + c] = out[c].bytes;
        out[c].write(parts[c]);
      }
    }
    trace?.(`stored pages ${p}..${end} (replayed from ${from})`);
    p = end + 1;
  }
  return out;
}

function concat(records: readonly Float64Array[]): Float64Array {
  const f = new Float64Array(records.length * PAGE_FIELDS);
  records.forEach((r, i) => f.set(r, i * PAGE_FIELDS));
  return f;
}
