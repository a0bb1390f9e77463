// Runners: each measurement is one fresh `node` process fed a file on stdin, timed from spawn()
// to 'close' (exit + stdout drained), so node startup and module loading are part of the number,
// exactly as a user piping a log through the CLI pays them.
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '..');
// The CLI bundle measured: dist/airlock.mjs, or BENCH_AIRLOCK (another build's, by path).
export const AIRLOCK = resolve(ROOT, process.env.BENCH_AIRLOCK || 'dist/airlock.mjs');

// Child environment. NODE_EXTRA_CA_CERTS makes every node process parse a CA bundle at startup
// (~90 ms here, 2-3x a bare `node -e 0`), and NODE_OPTIONS can inject loaders or flags; neither is
// part of what a user pays for `airlock sanitize`, and both would blur whole-process numbers for
// every runner alike. BENCH_KEEP_ENV=1 keeps the environment untouched.
const NOISY_ENV = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];
export const DROPPED_ENV = process.env.BENCH_KEEP_ENV === '1' ? [] : NOISY_ENV.filter((k) => k in process.env);
const CHILD_ENV = { ...process.env };
for (const k of DROPPED_ENV) delete CHILD_ENV[k];

export const RUNNERS = {
  airlock: { label: 'airlock', args: [AIRLOCK, 'sanitize'] },
  'strip-ansi': { label: 'strip-ansi', args: [join(HERE, 'peers/strip-ansi.mjs')] },
  util: { label: 'util.stripVT', args: [join(HERE, 'peers/strip-vt.mjs')] },
  cat: { label: 'cat (floor)', args: [join(HERE, 'peers/cat.mjs')] },
};
// BENCH_BASELINE: another build of the CLI (e.g. an older commit's dist/airlock.mjs), run in the
// same interleaved rounds as the product, so "no slower than before" is one run's ratio, not a
// comparison of two runs taken minutes apart on a machine whose speed drifts.
export const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
if (BASELINE) RUNNERS.baseline = { label: 'baseline', args: [BASELINE, 'sanitize'] };

/**
 * Runs `node ...args` with `inputFile` as stdin.
 * sink: 'count' (pipe, bytes counted and discarded), 'capture' (pipe, bytes kept for the leak scan),
 * 'null' (/dev/null: output as to a file, the bench process reading nothing).
 * A pipe rather than /dev/null because that is how the CLI is used (`make | airlock sanitize | less`),
 * and node writes pipes and files differently; every runner gets the same sink, so ratios are fair.
 * cpu: preload cpu-probe.mjs and report cpuMs (user+sys) and rssMiB (peak) of the child.
 * env: variables added to the child's environment.
 * Resolves { ms, cpuMs?, rssMiB?, outBytes, out?, code, signal, timedOut, stderr }; never rejects on
 * child failure.
 */
let cpuSeq = 0;
const CPU_PROBE = pathToFileURL(join(HERE, 'cpu-probe.mjs')).href;

export function runNode(args, inputFile, { sink = 'count', timeoutMs = 0, cwd = ROOT, stdinIgnore = false, cpu = true, env: extraEnv = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const cpuFile = cpu ? join(tmpdir(), `airlock-bench-cpu-${process.pid}-${cpuSeq++}`) : null;
    const env = { ...CHILD_ENV, ...extraEnv, ...(cpu ? { BENCH_CPU_FILE: cpuFile } : {}) };
    const argv = cpu ? ['--import', CPU_PROBE, ...args] : args;
    const fd = stdinIgnore ? 'ignore' : openSync(inputFile, 'r');
    const chunks = [];
    let outBytes = 0;
    let stderr = '';
    let timedOut = false;
    const t0 = process.hrtime.bigint();
    let child;
    try {
      child = spawn(process.execPath, argv, { stdio: [fd, sink === 'null' ? 'ignore' : 'pipe', 'pipe'], cwd, env });
    } catch (err) {
      if (fd !== 'ignore') closeSync(fd);
      reject(err);
      return;
    }
    // The child has its own copy of the descriptor now; ours is not needed.
    if (fd !== 'ignore') closeSync(fd);
    child.stdout?.on('data', (c) => {
      outBytes += c.length;
      if (sink === 'capture') chunks.push(c);
    });
    child.stderr.on('data', (c) => {
      if (stderr.length < 4096) stderr += c.toString('utf8');
    });
    const timer = timeoutMs > 0
      ? setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs)
      : null;
    child.on('error', (err) => { if (timer) clearTimeout(timer); reject(err); });
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (timer) clearTimeout(timer);
      let cpuMs, rssMiB;
      if (cpuFile) {
        try {
          const [user, sys, rss] = readFileSync(cpuFile, 'utf8').trim().split(' ').map(Number);
          cpuMs = (user + sys) / 1000;
          rssMiB = rss / 1024;
        } catch {
          // killed (timeout) or crashed before 'exit': no CPU figure for this run
        }
        rmSync(cpuFile, { force: true });
      }
      resolvePromise({
        ms, cpuMs, rssMiB, outBytes, code, signal, timedOut, stderr,
        out: sink === 'capture' ? Buffer.concat(chunks) : undefined,
      });
    });
  });
}

/**
 * Runs each of `names` once per round for `runs` rounds, the order rotated every round, so drift
 * (thermal, noisy neighbours) spreads over all of them instead of landing on one. `runOne(name)`
 * resolves a {@link runNode} result. A name already in `failed`, or whose run exits non-zero, is
 * not run again (its entry in `failed` says why: the exit and the first line of stderr). Resolves per name the samples of its runs:
 * `{ ms, cpuMs, rssMiB }` arrays (CPU and RSS only where the probe reported them).
 */
export async function interleavedRounds(names, runs, runOne, failed = {}) {
  const samples = Object.fromEntries(names.map((n) => [n, { ms: [], cpuMs: [], rssMiB: [] }]));
  for (let round = 0; round < runs; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const n of order) {
      if (failed[n]) continue;
      const m = await runOne(n);
      if (m.code !== 0) {
        failed[n] = `exit ${m.code}${m.signal ? ` ${m.signal}` : ''}: ${m.stderr.trim().split('\n')[0] ?? ''}`;
        continue;
      }
      samples[n].ms.push(m.ms);
      if (m.cpuMs !== undefined) samples[n].cpuMs.push(m.cpuMs);
      if (m.rssMiB !== undefined) samples[n].rssMiB.push(m.rssMiB);
    }
  }
  return samples;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Checks the CLI answers `sanitize` like `echo hi | airlock sanitize` should. Returns null or a reason. */
export async function probeAirlock(hiFile) {
  const r = await runNode([AIRLOCK, 'sanitize'], hiFile, { sink: 'capture', timeoutMs: 30000 })
    .catch((e) => ({ code: -1, stderr: String(e) }));
  if (r.code !== 0) {
    return `\`node ${AIRLOCK} sanitize\` exited ${r.code}${r.signal ? ` (${r.signal})` : ''}: ${(r.stderr || '').trim().split('\n')[0]}`;
  }
  if (!r.out.toString('utf8').includes('hi')) return `\`echo hi | node ${AIRLOCK} sanitize\` did not print "hi"`;
  return null;
}
