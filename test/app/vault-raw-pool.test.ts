// Raw writers that hash and write on a worker thread (what `airlock capture` uses): the same
// files as the plain writer, and on every failure (a write error, the thread dying, the open
// failing) nothing half-written stays behind and the error says what happened.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCapture } from '../../app/capture';
import { Vault } from '../../app/vault';

let base: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-raw-pool-'));
  root = join(base, 'vault');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const MiB = 1024 * 1024;

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out.push(`${rel}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Deterministic bytes that differ from chunk to chunk (so a reordered or dropped chunk shows). */
function pattern(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

describe('RawWriterPool', () => {
  it('stores content-addressed bytes, 0600, with the digest of exactly what was written', async () => {
    const vault = await Vault.open(root, { create: true });
    const w = vault.rawWriterPool().createRawWriter();
    const parts = ['\x1b]0;title\x07', 'hello ', 'world\n'];
    for (const p of parts) await w.write(Buffer.from(p));
    expect(w.size).toBe(parts.join('').length);
    const c = await w.commit();
    const whole = parts.join('');
    expect(c).toEqual({ sha256: sha(whole), size: whole.length, ref: `restricted:sha256:${sha(whole)}` });
    expect(await readFile(vault.rawPath(c.sha256), 'latin1')).toBe(whole);
    expect((await stat(vault.rawPath(c.sha256))).mode & 0o777).toBe(0o600);
    expect(await readdir(join(vault.root, 'tmp'))).toEqual([]);
  });

  it('keeps order through ring wrap-around and backpressure, for chunks of any size, two writers at once', async () => {
    const vault = await Vault.open(root, { create: true });
    const pool = vault.rawWriterPool();
    const a = pool.createRawWriter();
    const b = pool.createRawWriter();
    const sizes = [1, 65536, 7 * MiB + 3, 100, 65536, 3 * MiB, 5, 9 * MiB + 1, 65535, 12345];
    const expected = [createHash('sha256'), createHash('sha256')];
    const all: Buffer[][] = [[], []];
    let seed = 1;
    for (const n of sizes) {
      for (const [i, w] of [a, b].entries()) {
        const chunk = pattern(n, seed++);
        expected[i].update(chunk);
        all[i].push(Buffer.from(chunk));
        const wait = w.write(chunk);
        chunk.fill(0); // the writer copied it: reusing the buffer at once must not matter
        if (wait) await wait;
      }
    }
    const [ca, cb] = await Promise.all([a.commit(), b.commit()]);
    expect(ca.sha256).toBe(expected[0].digest('hex'));
    expect(cb.sha256).toBe(expected[1].digest('hex'));
    expect((await readFile(vault.rawPath(ca.sha256))).equals(Buffer.concat(all[0]))).toBe(true);
    expect((await readFile(vault.rawPath(cb.sha256))).equals(Buffer.concat(all[1]))).toBe(true);
    expect(await readdir(join(vault.root, 'tmp'))).toEqual([]);
  });

  it('takes unawaited writes (more than its ring holds) and commits all of them', async () => {
    const vault = await Vault.open(root, { create: true });
    const w = vault.rawWriterPool().createRawWriter();
    const buf = Buffer.alloc(700_000);
    const expected = createHash('sha256');
    for (let i = 0; i < 10; i++) {
      buf.fill(i + 1);
      expected.update(buf);
      void w.write(buf); // deliberately not awaited
    }
    const c = await w.commit();
    expect(c).toMatchObject({ sha256: expected.digest('hex'), size: 7_000_000 });
  });

  it('writes enough for the background syncs and still publishes exactly those bytes', async () => {
    const vault = await Vault.open(root, { create: true });
    const w = vault.rawWriterPool().createRawWriter();
    const chunk = pattern(MiB, 7);
    const expected = createHash('sha256');
    for (let i = 0; i < 70; i++) {
      chunk[0] = i;
      expected.update(chunk);
      const wait = w.write(chunk);
      if (wait) await wait;
    }
    const c = await w.commit();
    expect(c).toMatchObject({ sha256: expected.digest('hex'), size: 70 * MiB });
    expect(statSync(vault.rawPath(c.sha256)).size).toBe(70 * MiB);
  });

  it('handles empty output, dedups identical content, and abort removes the temp file', async () => {
    const vault = await Vault.open(root, { create: true });
    const pool = vault.rawWriterPool();
    expect(await pool.createRawWriter().commit()).toMatchObject({ sha256: sha(''), size: 0 });
    const store = async (s: string) => {
      const w = pool.createRawWriter();
      await w.write(Buffer.from(s));
      return w.commit();
    };
    const [x, y] = [await store('same'), await store('same')];
    expect(x).toEqual(y);
    expect(await readdir(join(vault.root, 'raw', 'sha256', x.sha256.slice(0, 2)))).toEqual([x.sha256]);
    const w = pool.createRawWriter();
    await w.write(Buffer.from('partial'));
    await w.abort();
    await w.abort(); // idempotent
    expect(await readdir(join(vault.root, 'tmp'))).toEqual([]);
    expect(await vault.hasRaw(sha('partial'))).toBe(false);
    expect(() => w.write(Buffer.from('x'))).toThrow(/closed/);
    await expect(w.commit()).rejects.toThrow(/closed/);
  });

  it('reports a temp file that cannot be opened from write() and commit()', async () => {
    const vault = await Vault.open(root, { create: true });
    rmSync(join(vault.root, 'tmp'), { recursive: true });
    const w = vault.rawWriterPool().createRawWriter();
    // The open fails while the first write is already in the ring; the next write says so.
    w.write(Buffer.from('early'));
    await new Promise((r) => setTimeout(r, 50));
    await expect(w.write(Buffer.from('late'))).rejects.toThrow(/ENOENT/);
    await expect(w.commit()).rejects.toThrow(/ENOENT/);
  });

  it('when the worker thread dies mid-stream: writes and commit fail with one clear line, nothing is left', async () => {
    const vault = await Vault.open(root, { create: true });
    const pool = vault.rawWriterPool();
    const a = pool.createRawWriter();
    const b = pool.createRawWriter();
    for (let i = 0; i < 3; i++) await a.write(pattern(MiB, i));
    for (let i = 0; i < 2; i++) await b.write(pattern(MiB, 5 + i));
    const small = pool.createRawWriter(); // below the size that needs the thread: not affected
    await small.write(Buffer.from('small'));
    await pool.killWorkerForTest();
    // Enough to need the (dead) worker: the ring fills, and the wait rejects.
    let failure: unknown = null;
    for (let i = 0; i < 20 && failure === null; i++) {
      try {
        await a.write(pattern(MiB, 10 + i));
      } catch (err) {
        failure = err;
      }
    }
    expect(String((failure as Error).message)).toMatch(/raw writer thread stopped/);
    expect((failure as Error).message).not.toContain('\n');
    await expect(a.commit()).rejects.toThrow(/raw writer thread stopped/);
    await expect(b.commit()).rejects.toThrow(/raw writer thread stopped/);
    expect(files(join(vault.root, 'raw'))).toEqual([]);
    expect(files(join(vault.root, 'tmp'))).toHaveLength(1); // the small writer's, still open
    const s = await small.commit();
    expect(s.sha256).toBe(sha('small'));
    expect(files(vault.root)).toEqual([`raw/sha256/${s.sha256.slice(0, 2)}/${s.sha256}`]);
    // A new writer gets a new thread.
    const c = pool.createRawWriter();
    const again = pattern(3 * MiB, 99);
    await c.write(again);
    expect((await c.commit()).sha256).toBe(sha(again));
  });

  it('a capture whose worker dies mid-stream stops the command, rejects and leaves no raw bytes', async () => {
    const vault = await Vault.open(root, { create: true });
    const pool = vault.rawWriterPool();
    const t = Date.now();
    const run = runCapture({
      argv: ['yes'],
      cwd: base,
      env: { PATH: process.env.PATH },
      maxBytes: 1024 * MiB,
      maxText: 64 * 1024,
      cr: 'newline',
      limits: {},
      createRawWriter: () => pool.createRawWriter(),
      killGraceMs: 500,
    });
    setTimeout(() => void pool.killWorkerForTest(), 200);
    await expect(run).rejects.toThrow(/raw writer thread stopped/);
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(files(vault.root)).toEqual([]);
  });
});

const ROOT = resolve(__dirname, '../..');
const DIST = process.env.AIRLOCK_E2E_BIN ? resolve(process.env.AIRLOCK_E2E_BIN) : join(ROOT, 'dist', 'airlock.mjs');
const prlimit = spawnSync('prlimit', ['--version'], { encoding: 'utf8' });
const noPrlimit = prlimit.status !== 0 ? 'prlimit (util-linux) is not installed' : !existsSync(DIST) ? `${DIST} does not exist; run \`npm run build\`` : null;

describe.skipIf(noPrlimit !== null)(`built CLI: a raw write failing mid-stream${noPrlimit ? ` (skipped: ${noPrlimit})` : ''}`, () => {
  it('exits 1 with one line, stores nothing, and the audit log says it started and failed (file size limit: EFBIG)', () => {
    const vault = join(base, 'v');
    // RLIMIT_FSIZE makes every write past 1 MiB fail with EFBIG (node ignores SIGXFSZ): the raw
    // file hits it after 1 MiB of output, while records and the audit log stay far below it.
    const r = spawnSync('prlimit', [`--fsize=${MiB}`, process.execPath, DIST, 'capture', '--vault', vault, '--sandbox', 'none', '--', 'head', '-c', String(8 * MiB), '/dev/zero'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(r.status).toBe(1);
    // The live output had begun (its first line names the command and record); the failure is stderr's one line.
    expect(r.stdout).toMatch(/^airlock: running head -c 8388608 \/dev\/zero as record \S+; its output follows as it arrives \(out: stdout, err: stderr\)\n$/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^airlock capture: capture of head -c 8388608 \/dev\/zero failed, nothing was stored: EFBIG/);
    expect(files(vault).filter((f) => f !== 'audit.jsonl' && !f.startsWith('.'))).toEqual([]);
    const actions = readFileSync(join(vault, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { action: string; stage?: string; code?: string });
    expect(actions.map((e) => [e.action, e.stage, e.code])).toEqual([['capture.started', undefined, undefined], ['capture.failed', 'run', 'EFBIG']]);
  });
});
