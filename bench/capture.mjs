// Capture overhead: `airlock capture --vault DIR -- cat FILE` (child + vault writes + sanitize)
// against `airlock sanitize < FILE` on the same bytes. Target: capture/sanitize ≤ 1.3.
//
// Kept as one self-contained function so the CLI owner can adjust the command line here without
// touching the rest of the harness. It probes first and reports "capture: not available" when
// the CLI has no capture command yet.
import { mkdtempSync, rmSync, readdirSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureInput, ensureEmpty, MiB } from './corpus.mjs';
import { AIRLOCK, runNode, median } from './runners.mjs';

export const CAPTURE_TARGET = 1.3;

function dirBytes(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

/**
 * Returns { available: false, reason } or { available: true, sizeMiB, captureMs, sanitizeMs, ratio, ... }.
 * Capture's stdout is its envelope rendering (sanitized text capped by --max-text), not the full
 * stream; its cost is in the vault writes (raw bytes, digests, chunk log), which is the point.
 */
export async function runCaptureSection({ sizeMiB, runs, log }) {
  const empty = ensureEmpty();
  const probe = await runNode([AIRLOCK, 'capture', '--help'], empty, { sink: 'capture', timeoutMs: 30000, cpu: false })
    .catch((e) => ({ code: -1, stderr: String(e) }));
  if (probe.code !== 0) return { available: false, reason: `\`airlock capture --help\` exited ${probe.code}` };

  const t = Date.now();
  const { file, generated } = ensureInput('colour', sizeMiB * MiB);
  if (generated) log?.(`  generated ${sizeMiB} MiB colour input for capture in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const bytes = statSync(file).size;

  const root = mkdtempSync(join(tmpdir(), 'airlock-bench-vault-'));
  const captureMs = [];
  const sanitizeMs = [];
  // CPU (user+sys of the airlock process, all its threads; not the child's) beside wall time: on a
  // shared box wall time includes waiting for a core, and capture uses a second thread.
  const captureCpuMs = [];
  const sanitizeCpuMs = [];
  let sandbox = 'unknown';
  let vaultBytes = 0;
  let captureOut = 0;
  let sanitizeOut = 0;
  try {
    for (let i = 0; i < runs; i++) {
      // A fresh vault per run (a vault that grows across runs would measure something else). It is
      // NOT created here: capture creates it 0700 itself and refuses a directory that group or
      // others can enter, which a plain mkdir under the usual umask would be. (The temp root from
      // mkdtemp is 0700.)
      const vault = join(root, `v${i}`);
      // --max-bytes: capture stops the command at 64M by default; the whole file must go through,
      // or the comparison with sanitize (which reads all of it) is meaningless.
      const c = await runNode(
        [AIRLOCK, 'capture', '--vault', vault, '--max-bytes', String(bytes + MiB), '--', 'cat', file],
        empty,
        { timeoutMs: 600000, sink: 'capture' },
      );
      if (c.code !== 0 || c.timedOut) {
        return { available: true, error: `capture exited ${c.timedOut ? 'timeout' : c.code}: ${c.stderr.trim().split('\n')[0]}` };
      }
      captureMs.push(c.ms);
      if (c.cpuMs !== undefined) captureCpuMs.push(c.cpuMs);
      captureOut = c.outBytes;
      // What was measured: the envelope's own line says whether bubblewrap ran the command.
      sandbox = /^airlock: sandbox (\S+):/m.exec(c.out.toString('utf8'))?.[1] ?? sandbox;
      vaultBytes = existsSync(vault) ? dirBytes(vault) : 0;
      rmSync(vault, { recursive: true, force: true });

      const s = await runNode([AIRLOCK, 'sanitize'], file, { timeoutMs: 600000 });
      if (s.code !== 0 || s.timedOut) {
        return { available: true, error: `sanitize exited ${s.timedOut ? 'timeout' : s.code}: ${s.stderr.trim().split('\n')[0]}` };
      }
      sanitizeMs.push(s.ms);
      if (s.cpuMs !== undefined) sanitizeCpuMs.push(s.cpuMs);
      sanitizeOut = s.outBytes;
      log?.(`  capture run ${i + 1}/${runs}: capture ${c.ms.toFixed(0)} ms (cpu ${c.cpuMs?.toFixed(0) ?? '?'}), sanitize ${s.ms.toFixed(0)} ms (cpu ${s.cpuMs?.toFixed(0) ?? '?'})`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const cm = median(captureMs);
  const sm = median(sanitizeMs);
  const ccpu = captureCpuMs.length === runs ? median(captureCpuMs) : undefined;
  const scpu = sanitizeCpuMs.length === runs ? median(sanitizeCpuMs) : undefined;
  return {
    available: true, sizeMiB, bytes, runs,
    captureMs: cm, sanitizeMs: sm, ratio: cm / sm, target: CAPTURE_TARGET, sandbox,
    captureCpuMs: ccpu, sanitizeCpuMs: scpu, cpuRatio: ccpu !== undefined && scpu !== undefined ? ccpu / scpu : undefined,
    vaultBytes, captureOutBytes: captureOut, sanitizeOutBytes: sanitizeOut,
  };
}
