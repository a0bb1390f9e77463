import { fixturesIn } from '../helpers/fixtures';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureCommand } from '../../app/cli/commands/capture';
import type { CaptureEnvelope } from '../../app/capture';
import { parseRef, Vault } from '../../app/vault';
import { runCommand } from '../helpers/cli';

/** The capture fixtures, copied into each test's working directory (the sandbox shows that, not this checkout). */
let FIXTURES = '';
const MiB = 1024 * 1024;

let base: string;
let vdir: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-capture-limits-'));
  vdir = join(base, 'vault');
  FIXTURES = fixturesIn(base, 'capture');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Runs `airlock capture --json` in-process; resolves to exit code, parsed envelope and output. */
async function captureJson(args: string[]): Promise<{ code: number; env: CaptureEnvelope; out: string }> {
  const r = await runCommand(captureCommand, ['--vault', vdir, '--json', ...args], { env: { PATH: process.env.PATH }, cwd: base });
  expect(r.err).toBe('');
  return { code: r.code, env: JSON.parse(r.out) as CaptureEnvelope, out: r.out };
}

/**
 * A full GC, so samples measure what is retained rather than garbage not yet collected.
 * `--expose-gc` set at run time makes `gc` available to new contexts.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Peak growth of retained JS heap + array buffers over `fn`, sampled (after a GC) every 50 ms. */
async function peakGrowth<T>(fn: () => Promise<T>): Promise<{ result: T; peak: number }> {
  const used = (): number => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = used();
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, used() - before)), 50);
  try {
    const result = await fn();
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

function isDead(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return /\) [ZX] /.test(state); // a zombie waits only for a parent to reap it
  } catch {
    return true;
  }
}

// The producers below never end: a capture that returns at all has stopped them (the test's
// timeout is the bound). Wall-clock limits are left out: they measure the machine's load.
describe('airlock capture: --max-bytes on endless producers', () => {
  it('stops `yes` at the cap: SIGTERM to the group, truncated, exactly max-bytes stored', async () => {
    const { code, env } = await captureJson(['--max-bytes', '1M', '--', 'yes']);
    expect(code).toBe(125);
    expect(env).toMatchObject({
      truncated: true,
      exit_code: null,
      signal: 'SIGTERM',
      termination: { reason: 'max-bytes', signals: ['SIGTERM'] },
      bytes: { stdout: MiB, stderr: 0 },
      sanitizer: { truncated: true, stdout: { truncated: true, input_bytes: MiB }, stderr: { truncated: true } },
      text_truncated: { stdout: null, stderr: null },
    });
    expect(env.stdout).toBe('y\n'.repeat(MiB / 2));
    const raw = await readFile((await Vault.open(vdir)).rawPath(parseRef(env.raw_artifacts.stdout).sha256));
    expect(raw.length).toBe(MiB);
  });

  it('kills a shell and its `yes` grandchild, and the OSC 52 payload never becomes text', async () => {
    const { env } = await captureJson(['--max-bytes', '1M', '--', 'sh', '-c', 'printf "\\033]52;c;"; yes AAAA']);
    expect(env).toMatchObject({ truncated: true, termination: { reason: 'max-bytes' }, bytes: { stdout: MiB } });
    expect(env.stdout).toBe('');
    expect(env.sanitizer.stdout.classes.osc.count).toBe(1);
    expect(env.sanitizer.stdout.unterminated).toBe(1);
    expect(env.sanitizer.stdout.oversized).toBe(1);
    expect(env.sanitizer.stdout.removed_bytes).toBe(MiB);
  });

  it('keeps memory bounded on a 48 MiB never-ending OSC (payload only in the raw artifact)', async () => {
    const { result, peak } = await peakGrowth(() => captureJson(['--max-bytes', '48M', '--', 'sh', join(FIXTURES, 'clipboard-flood.sh')]));
    const { env, out } = result;
    expect(env).toMatchObject({ truncated: true, stdout: '', bytes: { stdout: 48 * MiB } });
    expect(out).not.toContain('CLIP-BOARD');
    expect(readFileSync(join(vdir, 'records', `${env.record}.json`), 'utf8')).not.toContain('CLIP-BOARD');
    // A collector that kept the bytes would retain ≥ 48 MiB; streaming keeps staging buffers: a
    // 4 MiB shared ring per stream for the raw writer thread, at most 4 MiB stored but not yet
    // sanitized, and the sanitizer's own buffers.
    expect(peak).toBeLessThan(32 * MiB);
    const vault = await Vault.open(vdir);
    const raw = await readFile(vault.rawPath(parseRef(env.raw_artifacts.stdout).sha256));
    expect(raw.subarray(0, 7).toString('latin1')).toBe('\x1b]52;c;');
    expect(raw.subarray(7, 7 + 16).toString('latin1')).toBe('CLIP-BOARD-77e2\n');
  });

  it('SIGKILLs a grandchild that ignores SIGTERM', async () => {
    const pidFile = join(base, 'stubborn.pid');
    // Unsandboxed: the pid file is in the host's /tmp, and the SIGTERM-then-SIGKILL escalation is
    // the process-group machinery's; under bwrap the whole sandbox dies at once (sandbox.test.ts).
    const { env } = await captureJson(['--sandbox', 'none', '--max-bytes', '256K', '--', 'sh', '-c', 'sh "$0" "$1" & wait', join(FIXTURES, 'stubborn.sh'), pidFile]);
    expect(env.termination).toEqual({ reason: 'max-bytes', signals: ['SIGTERM', 'SIGKILL'] });
    expect(env.truncated).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(1);
    expect(isDead(pid)).toBe(true);
    // Nothing is left in the vault's temp directory.
    expect(existsSync(join(vdir, 'tmp')) ? await readdir(join(vdir, 'tmp')) : []).toEqual([]);
  });

  it('does not call output that ends exactly at the cap truncated', async () => {
    const { code, env } = await captureJson(['--max-bytes', '6', '--', 'sh', '-c', 'printf abc; printf def >&2']);
    expect(code).toBe(0);
    expect(env).toMatchObject({ truncated: false, termination: null, bytes: { stdout: 3, stderr: 3 } });
  });
});

describe('airlock capture: --max-text head and tail', () => {
  const line = (i: number): string => `${i} ä€本😀 ${'x'.repeat(i % 7)}\n`;
  const full = Array.from({ length: 5000 }, (_, i) => line(i)).join('');
  const fullBytes = Buffer.from(full, 'utf8');

  for (const maxText of [1001, 4096, 65_537]) {
    it(`keeps the first and last half of ${maxText} bytes, cut at line boundaries`, async () => {
      const { env, out } = await captureJson(['--max-text', String(maxText), '--', 'node', join(FIXTURES, 'utf8-lines.mjs'), '5000']);
      expect(env.bytes.stdout).toBe(fullBytes.length);
      expect(env.truncated).toBe(false);
      const cut = env.text_truncated.stdout!;
      const text = Buffer.from(env.stdout, 'utf8');
      expect(text.length).toBe(cut.head_bytes + cut.tail_bytes);
      expect(text.length).toBeLessThanOrEqual(maxText);
      expect(text.length).toBeGreaterThan(maxText - 2 * 25); // at most one line (< 25 bytes) lost at each cut
      // Both cuts fall on line boundaries, so head and tail cannot join into a line never printed.
      expect(cut.at_line_boundaries).toBe(true);
      expect(text[cut.head_bytes - 1]).toBe(0x0a);
      expect(fullBytes[fullBytes.length - cut.tail_bytes - 1]).toBe(0x0a);
      expect(cut.head_bytes + cut.tail_bytes + cut.omitted_bytes).toBe(fullBytes.length);
      expect(env.stdout).not.toContain('\ufffd');
      // Head is a prefix and tail a suffix of the full text, byte for byte.
      expect(text.subarray(0, cut.head_bytes).equals(fullBytes.subarray(0, cut.head_bytes))).toBe(true);
      expect(text.subarray(cut.head_bytes).equals(fullBytes.subarray(fullBytes.length - cut.tail_bytes))).toBe(true);
      // The truncation is metadata, never marker text inside the output.
      expect(env.stdout).not.toMatch(/omitted|truncated|\.\.\./);
      expect(out).not.toContain('\\ufffd');
    });
  }

  it('leaves short output whole', async () => {
    const { env } = await captureJson(['--max-text', '1M', '--', 'node', join(FIXTURES, 'utf8-lines.mjs'), '100']);
    expect(env.text_truncated.stdout).toBeNull();
    expect(env.stdout).toBe(Array.from({ length: 100 }, (_, i) => line(i)).join(''));
  });
});
