// npm run bench:viewer — the viewer benchmark (contract: /work/shared/DESIGN.md).
// 1. Generates a hostile artifact (VIEWER_BENCH_BYTES, default 1 GiB) into a temp vault.
// 2. Service side: indexes it in the worker (MB/s, peak RSS), times a second (cached) open and the
//    queries the viewer makes, and the searches (raw over the whole artifact, sanitized text).
// 3. UI side: drives the real renderer in Chromium through e2e/harness.ts (viewer.bench.ts under
//    Playwright): first hex rows after approval, jump to the last byte, renderer heap.
// Prints, as its LAST line, one JSON object with size_bytes, first_rows_ms, jump_end_ms,
// index_mb_s, renderer_heap_mb, search_ms (plus detail fields). MB here is 2^20 bytes.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { clearInterval, setInterval } from 'node:timers';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeHostileArtifact } from './hostile.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SIZE = Number(process.env.VIEWER_BENCH_BYTES ?? 2 ** 30);
const MiB = 2 ** 20;
const log = (...a) => console.error('[bench:viewer]', ...a);

if (!Number.isSafeInteger(SIZE) || SIZE < 1) throw new Error('VIEWER_BENCH_BYTES must be a positive integer');
const fsInfo = statfsSync(tmpdir());
const free = fsInfo.bavail * fsInfo.bsize;
// Raw + index (text ~0.2x, spans ~0.35x for this artifact, map ~0.07x) + slack.
if (free < SIZE * 2.2) throw new Error(`need ~${Math.ceil((SIZE * 2.2) / MiB)} MiB free under ${tmpdir()}, have ${Math.floor(free / MiB)} MiB`);

const tmp = mkdtempSync(join(tmpdir(), 'airlock-viewer-bench-'));
const results = { size_bytes: SIZE, first_rows_ms: null, jump_end_ms: null, index_mb_s: null, renderer_heap_mb: null, search_ms: null };
try {
  // Bundle the services (TypeScript) and the index worker once.
  const svcFile = join(tmp, 'services.mjs');
  const out = await build({
    stdin: {
      contents: `export { Vault, newRecordId } from './app/vault';\nexport { createArtifactService } from './app/services/artifact';\nexport { Sanitizer } from './shared/sanitize';`,
      resolveDir: REPO, loader: 'ts',
    },
    bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent',
  });
  writeFileSync(svcFile, out.outputFiles[0].text);
  const workerFile = join(tmp, 'artifact-worker.cjs');
  await build({ entryPoints: [join(REPO, 'app/services/artifact/worker.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: workerFile, logLevel: 'silent' });
  process.env.AIRLOCK_ARTIFACT_WORKER = workerFile;
  const { Vault, newRecordId, createArtifactService, Sanitizer } = await import(pathToFileURL(svcFile).href);

  const vaultDir = join(tmp, 'vault');
  const vault = await Vault.open(vaultDir, { create: true });
  mkdirSync(join(vaultDir, 'tmp'), { recursive: true, mode: 0o700 });
  let t = performance.now();
  const gen = join(vaultDir, 'tmp', 'bench.part');
  const info = writeHostileArtifact(gen, SIZE);
  const rawPath = vault.rawPath(info.sha256);
  mkdirSync(dirname(rawPath), { recursive: true, mode: 0o700 });
  chmodSync(dirname(rawPath), 0o700);
  renameSync(gen, rawPath);
  chmodSync(rawPath, 0o600);
  const ref = `restricted:sha256:${info.sha256}`;
  log(`generated ${SIZE} bytes (${info.blocks} hostile blocks of ${info.blockBytes} B) in ${Math.round(performance.now() - t)} ms`);
  // An artifact in a vault was written long before anyone views it: flush the one just generated,
  // so the kernel's writeback of a GiB of dirty pages does not run beside the measurements.
  t = performance.now();
  {
    const fd = openSync(rawPath, 'r');
    fsyncSync(fd);
    closeSync(fd);
  }
  log(`flushed it to disk in ${Math.round(performance.now() - t)} ms`);

  const svc = createArtifactService({ vault, rawPath: (sha) => vault.rawPath(sha) });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 100);
  t = performance.now();
  await svc.startIndex(ref);
  const done = await svc.whenIndexed(ref);
  const indexMs = performance.now() - t;
  clearInterval(sampler);
  if (done.state !== 'done') throw new Error(`indexing ${done.state}: ${done.error}`);
  results.index_mb_s = round((SIZE / MiB) / (indexMs / 1000));
  results.index_ms = Math.round(indexMs);
  results.index_peak_rss_mb = Math.round(peakRss / MiB);
  results.spans = done.spans;
  results.text_lines = done.textLines;
  const indexBytes = dirBytes(join(vaultDir, 'index', info.sha256));
  results.index_bytes = indexBytes;
  log(`indexed in ${results.index_ms} ms: ${results.index_mb_s} MB/s, ${done.spans} spans, ${done.textLines} lines, index ${Math.round(indexBytes / MiB)} MiB, peak RSS ${results.index_peak_rss_mb} MiB`);

  // Baseline: the bare Sanitizer (offset map + spans on) over the first 256 MiB, to show what the
  // index adds. It runs after the index: its quarter-GiB offset map, freed, would otherwise be
  // memory the index's threads fault in again.
  {
    const fd = openSync(rawPath, 'r');
    const page = new Uint8Array(MiB);
    const n = Math.min(SIZE, 256 * MiB);
    let spans = 0;
    const s = new Sanitizer({ mapOffsets: true, reuseOutputBuffer: true, hooks: { onSpan: () => { spans++; } } });
    t = performance.now();
    for (let pos = 0; pos < n; pos += MiB) {
      const got = readSync(fd, page, 0, Math.min(MiB, n - pos), pos);
      s.write(got === MiB ? page : page.subarray(0, got));
    }
    s.end();
    closeSync(fd);
    results.sanitizer_only_mb_s = round((n / MiB) / ((performance.now() - t) / 1000));
    log(`bare Sanitizer (map + onSpan hook, in memory map): ${results.sanitizer_only_mb_s} MB/s over ${n / MiB} MiB, ${spans} spans`);
  }

  // Second open: a fresh service (like a new app start) on the same vault.
  const again = createArtifactService({ vault, rawPath: (sha) => vault.rawPath(sha) });
  t = performance.now();
  const st = await again.startIndex(ref);
  results.cached_open_ms = round(performance.now() - t);
  log(`second open: cached=${st.cached} in ${results.cached_open_ms} ms`);

  // Query latencies on a cold service (what the viewer asks when it opens and jumps).
  const q = {};
  const time = async (name, fn) => {
    const t0 = performance.now();
    const v = await fn();
    q[name] = round(performance.now() - t0);
    return v;
  };
  const lines = done.textLines;
  await time('getTextLines_first_100', () => again.getTextLines(ref, 0, 100));
  await time('getTextLines_last_100', () => again.getTextLines(ref, Math.max(0, lines - 100), 100));
  await time('getTextLines_middle_2000', () => again.getTextLines(ref, Math.floor(lines / 2), 2000));
  await time('getSpans_end_64KiB', () => again.getSpans(ref, SIZE - 65536, 65536));
  await time('getSpans_middle_4MiB', () => again.getSpans(ref, Math.floor(SIZE / 2), 4 * MiB));
  await time('textPositionOf_end', () => again.textPositionOf(ref, SIZE - 1));
  await time('findSpan_next_osc', () => again.findSpan(ref, Math.floor(SIZE / 3), 1, { cls: 4 }));
  await time('findSpan_prev_from_end', () => again.findSpan(ref, SIZE, -1, {}));
  await time('getMinimap_2048', () => again.getMinimap(ref, 2048));
  const lastBlock = (info.blocks - 2).toString(16).padStart(12, '0');
  const textHits = await time('searchText_unique', () => again.searchText(ref, `BLOCK#${lastBlock}`, {}));
  const rawHits = await time('searchRaw_hex_osc52', () => again.searchRaw(ref, null, { mode: 'hex', pattern: '1b 5d 35 32 3b ?? 3b' }));
  const rawText = await time('searchRaw_text_unique', () => again.searchRaw(ref, null, { mode: 'text', pattern: `block#${lastBlock}` }));
  results.search_ms = Math.max(q.searchRaw_hex_osc52, q.searchRaw_text_unique);
  results.search_text_ms = q.searchText_unique;
  results.search_raw_hits_total = rawHits.total;
  results.search_text_hits = textHits.total;
  if (rawText.total !== 1 || textHits.total !== 1) log(`warning: unique block search found raw ${rawText.total}, text ${textHits.total}`);
  results.queries_ms = q;
  log('queries (ms):', JSON.stringify(q));

  // A record so the vault browser lists the artifact, with its report (the browser never reads raw bytes for it).
  const report = await again.getReport(ref);
  const id = newRecordId();
  await vault.putRecord({
    id, created_at: new Date().toISOString(), kind: 'capture', record_version: 1, command: 'bench:viewer hostile artifact', exit_code: 0,
    raw: { stdout: { sha256: info.sha256, size: SIZE } },
    metadata: { command: 'bench:viewer hostile artifact', cwd: tmp, exit_code: 0, duration_ms: 0, truncated: false },
    reports: { stdout: report },
  });
  await svc.close();
  await again.close();

  // UI side through the harness (Playwright runs the TypeScript spec).
  const uiOut = join(tmp, 'ui.json');
  if (!existsSync(join(REPO, 'e2e/harness.ts')) || !existsSync(join(REPO, 'dist/renderer/index.html'))) {
    log('UI part skipped: e2e/harness.ts or dist/renderer is missing (npm run build)');
    results.ui = 'skipped';
  } else {
    const r = spawnSync(process.execPath, [join(REPO, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(REPO, 'bench/viewer/playwright.config.ts')], {
      cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000,
      env: { ...process.env, BENCH_VAULT: vaultDir, BENCH_REF: ref, BENCH_SIZE: String(SIZE), BENCH_OUT: uiOut },
    });
    if (existsSync(uiOut)) Object.assign(results, JSON.parse(readFileSync(uiOut, 'utf8')));
    else results.ui = `failed (playwright exit ${r.status})`;
  }
} finally {
  if (!process.env.VIEWER_BENCH_KEEP) rmSync(tmp, { recursive: true, force: true });
  else log(`kept ${tmp}`);
}
console.log(JSON.stringify(results));

function round(x) {
  return Math.round(x * 10) / 10;
}

function dirBytes(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) total += statSync(join(dir, name)).size;
  return total;
}
