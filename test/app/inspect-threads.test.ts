// `inspect` of a large file formats its dump on a second thread (app/cli/inspect/threaded-dump.ts,
// dist/inspect-worker.cjs), which only the built CLI has: run as a process, its output must be
// the one-thread output byte for byte, and the thread must really have run (Node's own worker
// debug log says so), or the comparison would prove nothing.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'dist/airlock.mjs');
const built = existsSync(CLI) && existsSync(join(ROOT, 'dist/inspect-worker.cjs'));

let dir = '';
let big = '';

/** 9 MiB of the hostile sample, runs of BEL/BS, split UTF-8 and random bytes (seeded), mixed. */
function hostileMegabytes(): Buffer {
  const sample = readFileSync(join(ROOT, 'assets/samples/hostile-transcript.bin'));
  const parts: Buffer[] = [];
  let seed = 0x2545f491;
  const random = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  let size = 0;
  for (let k = 0; size < 9 << 20; k++) {
    let part: Buffer;
    if (k % 5 === 0) part = Buffer.from(Array.from({ length: 4096 }, () => random() & 0xff));
    else if (k % 5 === 1) part = Buffer.from('\x07\x08'.repeat(1000 + (random() % 3000)));
    else if (k % 5 === 2) part = Buffer.from(`€本 café ${'✓'.repeat(random() % 40)}\u202e\u200b\n`.repeat(50));
    else part = sample;
    parts.push(part);
    size += part.length;
  }
  return Buffer.concat(parts);
}

/** Runs `airlock inspect ARGS` with stdout to a file (a descriptor: what the thread writes to); its digest, stderr and code. */
async function inspect(args: string[], env: Record<string, string> = {}): Promise<{ digest: string; bytes: number; err: string; code: number | null }> {
  const outPath = join(dir, 'out');
  const fd = openSync(outPath, 'w', 0o600);
  const child = spawn(process.execPath, [CLI, 'inspect', ...args], { stdio: ['ignore', fd, 'pipe'], env: { PATH: process.env.PATH, NODE_DEBUG: 'worker', ...env } });
  closeSync(fd);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const out = readFileSync(outPath);
  return { digest: createHash('sha256').update(out).digest('hex'), bytes: out.length, err, code };
}

/** Whether the run's dump thread started and ran its script to the end (not started, or started and ended unused). */
function threadRan(err: string): boolean {
  return /starts worker script .*inspect-worker\.cjs/.test(err) && !/terminates Worker/.test(err);
}

describe.skipIf(!built)('inspect on two threads (dist/; `npm test` builds it first)', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-threads-'));
    big = join(dir, 'big.bin');
    writeFileSync(big, hostileMegabytes());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, args] of [
    ['the dump', []],
    ['the dump in colour', ['--color', 'always']],
    ['a large range, 20 bytes a row', ['--offset', '0x10001', '--length', '8500000', '--width', '20']],
  ] as const) {
    it(`${name} is the one-thread dump, byte for byte`, async () => {
      const two = await inspect([big, ...args]);
      const one = await inspect([big, ...args], { AIRLOCK_INSPECT_THREADS: '1' });
      expect(two.code).toBe(0);
      expect(one.code).toBe(0);
      expect(threadRan(two.err)).toBe(true);
      expect(one.err).not.toMatch(/create new worker/);
      expect(two.bytes).toBeGreaterThan(9 << 20);
      expect(two.digest).toBe(one.digest);
    }, 60_000);
  }

  it('a small range of a large file stays on one thread (a started thread is ended unused)', async () => {
    const r = await inspect([big, '--offset', String(8 << 20)]);
    expect(r.code).toBe(0);
    expect(threadRan(r.err)).toBe(false);
  }, 60_000);

  it('exits quietly when its reader goes away mid-dump', async () => {
    const child = spawn(process.execPath, [CLI, 'inspect', big], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    let seen = 0;
    child.stdout.on('data', (d: Buffer) => {
      seen += d.length;
      if (seen > 1 << 20) child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(err).toBe('');
  }, 60_000);
});
