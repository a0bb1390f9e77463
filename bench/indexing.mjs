// In-process indexing rate: the Sanitizer as the viewer's span index runs it (offset map on, every
// span to an onSpan hook that stores a fixed-size record, output buffer reused), fed 1 MiB chunks of a
// corpus file already in memory, so the figure is the sanitizer's alone (no I/O, no startup).
// Beside it, the same Sanitizer without map and spans (what `airlock sanitize` runs), so the cost
// of the map and dispatch shows as a ratio. shared/sanitize is bundled with esbuild into
// bench/.corpus/ (the bench's own cache); each measurement runs in a fresh node process.
// BENCH_SHARED=DIR bundles DIR/shared instead (e.g. an older checkout, for a before/after run).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS_DIR } from './corpus.mjs';
import { ROOT, median } from './runners.mjs';

const BUNDLE = join(CORPUS_DIR, 'sanitize-bundle.mjs');

// The child: imports the bundle, reads the file, times `runs` passes after one untimed priming pass.
const CHILD = `
import { readFileSync } from 'node:fs';
const [bundle, file, mode, runs] = process.argv.slice(1);
const { Sanitizer } = await import(bundle);
const input = readFileSync(file);
const CHUNK = 1 << 20;
let rec = new Float64Array(1 << 16);
function once() {
  const index = mode === 'index';
  let n = 0;
  const onSpan = (cls, offset, length, meaning, flags, code) => {
    const k = (n++ & 0x3fff) << 2;
    rec[k] = offset; rec[k + 1] = length; rec[k + 2] = code; rec[k + 3] = cls | (flags << 8);
  };
  // A build before the Sanitizer's hooks (BENCH_SHARED) takes onSpan among its options.
  const s = new Sanitizer(index ? { mapOffsets: true, reuseOutputBuffer: true, hooks: { onSpan }, onSpan } : { reuseOutputBuffer: true });
  let text = 0;
  for (let i = 0; i < input.length; i += CHUNK) text += s.write(input.subarray(i, Math.min(i + CHUNK, input.length))).length;
  text += s.end().length;
  s.getReport();
  return { text, spans: n, segments: s.map ? s.map.segments : 0 };
}
once();
const ms = [];
const cpuMs = [];
let info;
for (let r = 0; r < Number(runs); r++) {
  const t = process.hrtime.bigint();
  const c = process.cpuUsage();
  info = once();
  const d = process.cpuUsage(c);
  ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  cpuMs.push((d.user + d.system) / 1000);
}
// VmHWM, not resourceUsage().maxRSS: that survives exec and would report the bench parent's size.
const hwm = /^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
process.stdout.write(JSON.stringify({ ms, cpuMs, ...info, rssMiB: (hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS) / 1024 }));
`;

/** Bundles `root`/shared/sanitize (default: this checkout) to `outfile`; resolves its path. */
export async function bundleSanitizer(root = process.env.BENCH_SHARED || ROOT, outfile = BUNDLE) {
  await build({
    entryPoints: [join(root, 'shared/sanitize/index.ts')],
    bundle: true, format: 'esm', platform: 'neutral', target: 'node20', outfile, logLevel: 'warning',
  });
  return outfile;
}

/** Runs `mode` ('index' or 'plain') over `file`; resolves { medianMs, mbPerS, spans, segments, rssMiB }. */
export function measureIndexing(file, bytes, mode, runs, bundle = BUNDLE) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, bundle, file, mode, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) return { error: (r.stderr || `exit ${r.status}`).trim().split('\n')[0] };
  const out = JSON.parse(r.stdout);
  const medianMs = median(out.ms);
  return { ...out, medianMs, mbPerS: bytes / 1e6 / (medianMs / 1000), mibPerS: bytes / 2 ** 20 / (medianMs / 1000) };
}
