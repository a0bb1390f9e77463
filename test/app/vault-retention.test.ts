import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdFileLock } from '../../app/audit';
import { newRecordId, Vault, VaultError, type CaptureRecord } from '../../app/vault';

let base: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-retention-'));
  root = join(base, 'vault');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const day = 86_400_000;
const now = new Date('2026-06-30T12:00:00Z');
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function storeRaw(vault: Vault, text: string): Promise<{ sha256: string; size: number }> {
  const w = vault.createRawWriter();
  await w.write(Buffer.from(text));
  const { sha256, size } = await w.commit();
  return { sha256, size };
}

function recordFor(created: Date, raw: CaptureRecord['raw']): CaptureRecord {
  return {
    id: newRecordId(created),
    created_at: created.toISOString(),
    raw,
    sanitized: { stdout: '', stderr: '' },
    metadata: { command: ['true'], exit_code: 0 },
  };
}

async function storeCapture(vault: Vault, created: Date, out: string, err: string): Promise<CaptureRecord> {
  const record = recordFor(created, { stdout: await storeRaw(vault, out), stderr: await storeRaw(vault, err) });
  await vault.putRecord(record);
  return record;
}

describe('holdFileLock', () => {
  it('excludes a second holder until released, and release is idempotent', async () => {
    const lock = join(base, 'x.lock');
    const release = await holdFileLock(lock, { staleMs: Infinity });
    await expect(holdFileLock(lock, { timeoutMs: 150, staleMs: Infinity })).rejects.toThrow(/timed out .*held by pid/);
    await release();
    await release();
    const again = await holdFileLock(lock, { timeoutMs: 150 });
    await again();
  });

  it('with staleMs Infinity, keeps an old lock of a live holder and breaks one of a dead holder', async () => {
    const lock = join(base, 'x.lock');
    const longAgo = new Date(Date.now() - 365 * day);
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'live' }));
    await utimes(lock, longAgo, longAgo);
    await expect(holdFileLock(lock, { timeoutMs: 150, staleMs: Infinity })).rejects.toThrow(/timed out/);
    // pid above any pid_max: no such process
    await writeFile(lock, JSON.stringify({ pid: 99_999_999, host: hostname(), nonce: 'dead' }));
    const release = await holdFileLock(lock, { timeoutMs: 1000, staleMs: Infinity });
    expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
  });
});

describe('prune and a concurrent capture (retention lock)', () => {
  it('a capture reusing a raw file (dedup) during a prune keeps its bytes', async () => {
    const vault = await Vault.open(root, { create: true });
    const old = await storeCapture(vault, new Date(now.getTime() - 30 * day), 'old out', '');
    expect(old.raw.stderr!.sha256).toBe(sha(''));

    // Prune takes its snapshot (only the old record uses the empty digest), then pauses before deleting.
    const paused = deferred();
    const resume = deferred();
    let first = true;
    const pruning = vault.pruneRaw(7 * day, now, {
      beforeDelete: async () => {
        if (!first) return;
        first = false;
        paused.resolve();
        await resume.promise;
      },
    });
    await paused.promise;

    // A capture with an empty stderr finishes now: lock, commit (dedup), record, release.
    let committed = false;
    const capturing = (async () => {
      const release = await vault.holdRetentionLock();
      try {
        const record = recordFor(new Date(now.getTime() - 60_000), { stdout: await storeRaw(vault, 'new out'), stderr: await storeRaw(vault, '') });
        committed = true;
        await vault.putRecord(record);
        return record;
      } finally {
        await release();
      }
    })();
    await sleep(200);
    expect(committed).toBe(false); // waits for the prune
    resume.resolve();
    const result = await pruning;
    expect(result.pruned.map((p) => p.sha256).sort()).toEqual([old.raw.stdout!.sha256, sha('')].sort());
    const fresh = await capturing;
    expect(await vault.hasRaw(sha(''))).toBe(true);
    expect((await vault.getRecord(fresh.id)).raw_pruned_at).toBeUndefined();
    expect((await vault.verify()).problems).toEqual([]);
    expect(await readdir(vault.root)).not.toContain('retention.lock');
  });

  it('prune waits for a capture holding the lock, and gives up after lockTimeoutMs', async () => {
    const vault = await Vault.open(root, { create: true });
    const release = await vault.holdRetentionLock();
    await expect(vault.pruneRaw(7 * day, now, { lockTimeoutMs: 150 })).rejects.toThrow(/retention\.lock/);
    await release();
    await expect(vault.pruneRaw(7 * day, now, { lockTimeoutMs: 150 })).resolves.toMatchObject({ pruned: [] });
  });
});

describe('prune and unreadable records', () => {
  it('deletes no raw file and marks no record while a record file is unreadable', async () => {
    const vault = await Vault.open(root, { create: true });
    const old = await storeCapture(vault, new Date(now.getTime() - 30 * day), 'shared out', '');
    // An unreadable (newer) record that may reference the same bytes.
    await writeFile(join(vault.root, 'records', '20260629T000000Z-deadbeef.json'), '{"id":', { mode: 0o600 });
    const result = await vault.pruneRaw(7 * day, now);
    expect(result).toMatchObject({ pruned: [], bytes: 0, recordsMarked: [], rawKept: true, unreadableRecords: ['20260629T000000Z-deadbeef.json'] });
    expect(await vault.hasRaw(old.raw.stdout!.sha256)).toBe(true);
    expect(await vault.hasRaw(sha(''))).toBe(true);
    expect((await vault.getRecord(old.id)).raw_pruned_at).toBeUndefined();

    await rm(join(vault.root, 'records', '20260629T000000Z-deadbeef.json'));
    const after = await vault.pruneRaw(7 * day, now);
    expect(after.rawKept).toBe(false);
    expect(after.pruned).toHaveLength(2);
  });
});

describe('prune and temp files of live captures', () => {
  it('keeps an old temp file whose writer is still running, so the capture still commits', async () => {
    const vault = await Vault.open(root, { create: true });
    const writer = vault.createRawWriter();
    await writer.write(Buffer.from('quiet stream')); // stays in the writer's buffer
    const tmpDir = join(vault.root, 'tmp');
    let names: string[] = [];
    for (let i = 0; i < 100 && names.length === 0; i++) {
      names = await readdir(tmpDir);
      if (names.length === 0) await sleep(10);
    }
    expect(names).toHaveLength(1);
    const live = names[0]!;
    expect(live).toMatch(new RegExp(`^raw-${process.pid}-[0-9a-f]{8}-[0-9a-f]{16}\\.part$`));
    const twoDaysAgo = new Date(Date.now() - 2 * day);
    await utimes(join(tmpDir, live), twoDaysAgo, twoDaysAgo);
    // Leftovers of dead writers go: one with a dead owner, one in the older name format.
    const tag = live.split('-')[2]!;
    const dead = `raw-99999999-${tag}-00000000000000aa.part`;
    const legacy = 'raw-00000000000000bb.part';
    for (const n of [dead, legacy]) {
      await writeFile(join(tmpDir, n), 'x');
      await utimes(join(tmpDir, n), twoDaysAgo, twoDaysAgo);
    }

    const result = await vault.pruneRaw(7 * day, new Date());
    expect(result.tempFilesRemoved).toBe(2);
    expect(await readdir(tmpDir)).toEqual([live]);
    const commit = await writer.commit();
    expect(commit.sha256).toBe(sha('quiet stream'));
    expect(await vault.hasRaw(commit.sha256)).toBe(true);
  });
});

describe('opening a vault whose directories are links', () => {
  for (const sub of ['tmp', 'records', 'raw', 'raw/sha256']) {
    it(`refuses a symlinked ${sub}/ on every open, and prune cannot reach outside`, async () => {
      await Vault.open(root, { create: true });
      const outside = join(base, 'outside');
      await mkdir(outside);
      const victim = join(outside, 'raw-00000000000000aa.part');
      await writeFile(victim, 'not the vault\'s');
      const old = new Date(Date.now() - 30 * day);
      await utimes(victim, old, old);
      await rm(join(root, sub), { recursive: true });
      await symlink(outside, join(root, sub));

      for (const create of [false, true]) {
        const err = await Vault.open(root, { create }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(VaultError);
        expect((err as VaultError).code).toBe('insecure');
        expect((err as VaultError).message).toContain(`${join(root, sub)} is a symbolic link`);
      }
      expect(await readFile(victim, 'utf8')).toBe("not the vault's");
    });
  }

  it('refuses a tmp that is a file', async () => {
    await Vault.open(root, { create: true });
    await rm(join(root, 'tmp'), { recursive: true });
    await writeFile(join(root, 'tmp'), 'x');
    await expect(Vault.open(root)).rejects.toThrow(`${join(root, 'tmp')} is not a directory`);
  });
});

describe('prune and the viewer index cache', () => {
  it('removes cached span indexes whose raw bytes go, and stale interrupted builds, nothing else', async () => {
    const vault = await Vault.open(root, { create: true });
    const nowish = new Date();
    const old = await storeCapture(vault, new Date(nowish.getTime() - 30 * day), 'old out', 'old err');
    const fresh = await storeCapture(vault, new Date(nowish.getTime() - day), 'new out', 'new err');
    const index = join(vault.root, 'index');
    const twoDaysAgo = new Date(nowish.getTime() - 2 * day);
    const oldOut = old.raw.stdout!.sha256;
    const freshOut = fresh.raw.stdout!.sha256;
    const orphan = sha('bytes nobody stored');
    const dirs = [oldOut, freshOut, orphan, `.build-${oldOut.slice(0, 16)}-aaaaaaaaaaaa`, `.build-${freshOut.slice(0, 16)}-bbbbbbbbbbbb`, `${freshOut}.old-cccccccccccc`, 'not-an-index'];
    for (const d of dirs) {
      await mkdir(join(index, d), { recursive: true });
      await writeFile(join(index, d, 'spans.bin'), Buffer.alloc(100));
    }
    // The first build and the moved-aside index are leftovers of a crash two days ago; the second build is running now.
    for (const d of [dirs[3]!, dirs[5]!]) await utimes(join(index, d), twoDaysAgo, twoDaysAgo);

    const dry = await vault.pruneRaw(7 * day, nowish, { dryRun: true });
    expect(dry.index).toEqual({ digests: [oldOut, orphan].sort(), leftovers: 2, bytes: 400, derived: 0 });
    expect((await readdir(index)).sort()).toEqual([...dirs].sort());

    const result = await vault.pruneRaw(7 * day, nowish);
    expect(result.index).toEqual({ digests: [oldOut, orphan].sort(), leftovers: 2, bytes: 400, derived: 0 });
    expect((await readdir(index)).sort()).toEqual([freshOut, dirs[4]!, 'not-an-index'].sort());
    expect(await vault.hasRaw(freshOut)).toBe(true);
  });

  it('is a no-op without an index directory', async () => {
    const vault = await Vault.open(root, { create: true });
    await storeCapture(vault, new Date(Date.now() - 30 * day), 'a', 'b');
    const result = await vault.pruneRaw(7 * day, new Date());
    expect(result.index).toEqual({ digests: [], leftovers: 0, bytes: 0, derived: 0 });
  });
});
