import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultVaultDir,
  formatRef,
  newRecordId,
  parseRef,
  resolveVaultDir,
  Vault,
  VaultError,
  type CaptureRecord,
} from '../../app/vault';

let base: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-vault-'));
  root = join(base, 'vault');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const mode = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;
const code = (c: string) => (e: unknown) => e instanceof VaultError && e.code === c;

async function storeRaw(vault: Vault, bytes: Uint8Array | string): Promise<{ sha256: string; size: number }> {
  const w = vault.createRawWriter();
  await w.write(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
  const { sha256, size } = await w.commit();
  return { sha256, size };
}

async function storeCapture(vault: Vault, created: Date, out: string, err = ''): Promise<CaptureRecord> {
  const record: CaptureRecord = {
    id: newRecordId(created),
    created_at: created.toISOString(),
    raw: { stdout: await storeRaw(vault, out), stderr: await storeRaw(vault, err) },
    sanitized: { stdout: out.replace(/\x1b/g, ''), stderr: err },
    metadata: { command: ['echo', 'hi'], exit_code: 0 },
  };
  await vault.putRecord(record);
  return record;
}

describe('vault location', () => {
  it('prefers AIRLOCK_VAULT, then absolute XDG_DATA_HOME, then ~/.local/share', () => {
    expect(defaultVaultDir({ AIRLOCK_VAULT: '/v', XDG_DATA_HOME: '/x' }, '/h')).toBe('/v');
    expect(defaultVaultDir({ XDG_DATA_HOME: '/x' }, '/h')).toBe('/x/airlock/vault');
    expect(defaultVaultDir({ XDG_DATA_HOME: 'relative' }, '/h')).toBe('/h/.local/share/airlock/vault');
    expect(defaultVaultDir({}, '/h')).toBe('/h/.local/share/airlock/vault');
  });

  it('resolves --vault over the env, relative to the given cwd', () => {
    expect(resolveVaultDir('v', { AIRLOCK_VAULT: '/env' }, '/work')).toBe('/work/v');
    expect(resolveVaultDir('v', { AIRLOCK_VAULT: 'rel' }, '/work')).toBe('/work/v');
    // A relative AIRLOCK_VAULT would open another vault in every directory (issue #9, bug class 8).
    expect(() => resolveVaultDir(undefined, { AIRLOCK_VAULT: 'rel' }, '/work')).toThrow(/AIRLOCK_VAULT must be an absolute path, not 'rel'/);
    expect(() => resolveVaultDir(undefined, { AIRLOCK_VAULT: '~/vault' }, '/work')).toThrow(/expanded only by a shell/);
  });
});

describe('opening a vault', () => {
  it('creates the layout with 0700 directories even under umask 0', async () => {
    const saved = process.umask(0);
    try {
      const vault = await Vault.open(root, { create: true });
      for (const d of ['', 'raw', 'raw/sha256', 'records', 'tmp']) expect(await mode(join(vault.root, d))).toBe(0o700);
    } finally {
      process.umask(saved);
    }
  });

  it('says "no vault at DIR" when opening a missing vault without create', async () => {
    await expect(Vault.open(root)).rejects.toThrow(`no vault at ${root}`);
    await mkdir(root, { mode: 0o700 });
    await expect(Vault.open(root)).rejects.toSatisfy(code('no-vault')); // a bare dir is not a vault
  });

  it('refuses a populated vault that group/others can access, naming path and mode', async () => {
    await Vault.open(root, { create: true });
    await chmod(root, 0o755);
    await expect(Vault.open(root)).rejects.toThrow(`vault ${root} has mode 0755`);
    await expect(Vault.open(root, { create: true })).rejects.toSatisfy(code('insecure'));
    expect(await mode(root)).toBe(0o755); // not silently tightened
  });

  it('tightens an empty directory it is asked to create a vault in', async () => {
    await mkdir(root);
    await chmod(root, 0o755);
    const vault = await Vault.open(root, { create: true });
    expect(await mode(vault.root)).toBe(0o700);
  });

  it('refuses a vault path that is a file', async () => {
    await writeFile(root, 'x');
    await expect(Vault.open(root, { create: true })).rejects.toSatisfy(code('not-a-directory'));
    await expect(Vault.open(join(root, 'sub'), { create: true })).rejects.toSatisfy(code('not-a-directory'));
  });
});

describe('refs and ids', () => {
  const hex = 'ab'.repeat(32);
  it('parses only restricted:sha256:<64 lowercase hex>', () => {
    expect(parseRef(`restricted:sha256:${hex}`)).toEqual({ sha256: hex });
    expect(formatRef(hex)).toBe(`restricted:sha256:${hex}`);
    for (const bad of [
      hex,
      `restricted:sha256:${hex.toUpperCase()}`,
      `restricted:sha256:${hex.slice(1)}`,
      `restricted:sha256:${hex}0`,
      `restricted:sha256:${hex}\n`,
      ` restricted:sha256:${hex}`,
      `restricted:sha512:${hex}`,
      `restricted:sha256:../../${hex.slice(6)}`,
      '',
    ]) {
      expect(() => parseRef(bad), bad).toThrow(VaultError);
    }
  });

  it('makes time-sortable unique ids', () => {
    const a = newRecordId(new Date('2026-11-30T01:15:00.999Z'));
    expect(a).toMatch(/^20261130T011500Z-[0-9a-f]{8}$/);
    expect(newRecordId(new Date('2026-11-30T01:15:01Z')) > a).toBe(true);
    expect(new Set(Array.from({ length: 100 }, () => newRecordId())).size).toBe(100);
  });

  it('rejects path traversal, absolute paths, NUL and malformed ids in getRecord', async () => {
    const vault = await Vault.open(root, { create: true });
    await writeFile(join(base, 'secret.json'), JSON.stringify({ id: 'x' }));
    for (const bad of ['../secret', '../x', '/etc/passwd', `${base}/secret`, 'a/b', '20261130T011500Z-1a2b3c4d\0', '20261130T011500Z-1A2B3C4D', '..', '', '20261130T011500Z-1a2b3c4d.json']) {
      await expect(vault.getRecord(bad), JSON.stringify(bad)).rejects.toSatisfy(code('bad-id'));
    }
    await expect(vault.getRecord('20261130T011500Z-1a2b3c4d')).rejects.toSatisfy(code('not-found'));
  });

  it('validates digests in rawPath/hasRaw', async () => {
    const vault = await Vault.open(root, { create: true });
    expect(() => vault.rawPath('../../etc/passwd')).toThrow(VaultError);
    expect(() => vault.rawPath('A'.repeat(64))).toThrow(VaultError);
    await expect(vault.hasRaw('00')).rejects.toThrow(VaultError);
    expect(vault.rawPath(hex)).toBe(join(vault.root, 'raw', 'sha256', 'ab', hex));
  });
});

describe('RawWriter', () => {
  it('stores content-addressed bytes with mode 0600 and returns digest, size and ref', async () => {
    const vault = await Vault.open(root, { create: true });
    const w = vault.createRawWriter();
    const parts = ['\x1b]0;title\x07', 'hello ', 'world\n'];
    for (const p of parts) await w.write(Buffer.from(p));
    const c = await w.commit();
    const whole = parts.join('');
    expect(c).toEqual({ sha256: sha(whole), size: Buffer.byteLength(whole), ref: `restricted:sha256:${sha(whole)}` });
    const path = vault.rawPath(c.sha256);
    expect(await readFile(path, 'latin1')).toBe(whole);
    expect(await mode(path)).toBe(0o600);
    expect(await mode(join(vault.root, 'raw', 'sha256', c.sha256.slice(0, 2)))).toBe(0o700);
    expect(await readdir(join(vault.root, 'tmp'))).toEqual([]);
    expect(await vault.hasRaw(c.sha256)).toBe(true);
  });

  it('copies chunks, so a caller may reuse its buffer right after write()', async () => {
    const vault = await Vault.open(root, { create: true });
    const w = vault.createRawWriter();
    const buf = Buffer.alloc(700_000);
    const expected = createHash('sha256');
    for (let i = 0; i < 5; i++) {
      buf.fill(i + 1);
      expected.update(buf);
      void w.write(buf); // deliberately not awaited
    }
    const c = await w.commit();
    expect(c.sha256).toBe(expected.digest('hex'));
    expect((await readFile(vault.rawPath(c.sha256))).equals(Buffer.concat([1, 2, 3, 4, 5].map((n) => Buffer.alloc(700_000, n))))).toBe(true);
  });

  it('handles empty output and chunks larger than its stage buffer', async () => {
    const vault = await Vault.open(root, { create: true });
    const empty = await vault.createRawWriter().commit();
    expect(empty).toMatchObject({ sha256: sha(''), size: 0 });
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 0x9b);
    expect(await storeRaw(vault, big)).toEqual({ sha256: sha(big), size: big.length });
  });

  it('dedups identical content (one file, temp dropped)', async () => {
    const vault = await Vault.open(root, { create: true });
    const a = await storeRaw(vault, 'same');
    const b = await storeRaw(vault, 'same');
    expect(a).toEqual(b);
    expect(await readdir(join(vault.root, 'raw', 'sha256', a.sha256.slice(0, 2)))).toEqual([a.sha256]);
    expect(await readdir(join(vault.root, 'tmp'))).toEqual([]);
  });

  it('abort removes the temp file and publishes nothing; a closed writer refuses writes', async () => {
    const vault = await Vault.open(root, { create: true });
    const w = vault.createRawWriter();
    await w.write(Buffer.from('partial'));
    await w.abort();
    expect(await readdir(join(vault.root, 'tmp'))).toEqual([]);
    expect(await vault.hasRaw(sha('partial'))).toBe(false);
    expect(() => w.write(Buffer.from('x'))).toThrow(/closed/);
    await expect(w.commit()).rejects.toThrow(/closed/);
  });

  it('reports a failure to open its temp file from commit', async () => {
    const vault = await Vault.open(root, { create: true });
    rmSync(join(vault.root, 'tmp'), { recursive: true });
    const w = vault.createRawWriter();
    await expect(w.commit()).rejects.toThrow(/ENOENT/);
  });
});

describe('records', () => {
  it('round-trips records atomically with mode 0600 and lists them sorted', async () => {
    const vault = await Vault.open(root, { create: true });
    const r2 = await storeCapture(vault, new Date('2026-01-02T00:00:00Z'), 'two');
    const r1 = await storeCapture(vault, new Date('2026-01-01T00:00:00Z'), 'one');
    expect(await vault.getRecord(r1.id)).toEqual(r1);
    expect(await mode(join(vault.root, 'records', `${r1.id}.json`))).toBe(0o600);
    const { records, errors } = await vault.listRecords();
    expect(records.map((r) => r.id)).toEqual([r1.id, r2.id]);
    expect(errors).toEqual([]);
  });

  it('refuses to store a record twice (records are write-once), and refuses records whose raw is absent', async () => {
    const vault = await Vault.open(root, { create: true });
    const r = await storeCapture(vault, new Date(), 'x');
    await expect(vault.putRecord({ ...r, note: 'v2' })).rejects.toSatisfy(code('exists'));
    expect((await vault.getRecord(r.id)).note).toBeUndefined();
    const ghost: CaptureRecord = { id: newRecordId(), created_at: new Date().toISOString(), raw: { stdout: { sha256: sha('never stored'), size: 12 } } };
    await expect(vault.putRecord(ghost)).rejects.toSatisfy(code('raw-missing'));
    await expect(vault.putRecord({ ...r, id: newRecordId(), raw: { stdout: { ...r.raw.stdout!, size: 2 } } })).rejects.toSatisfy(code('bad-record'));
  });

  it('validates record shape', async () => {
    const vault = await Vault.open(root, { create: true });
    const ok = await storeCapture(vault, new Date(), 'x');
    const bad: unknown[] = [
      { ...ok, id: '../evil' },
      { ...ok, created_at: 'yesterday' },
      { ...ok, raw: { stdout: { sha256: 'nothex', size: 1 } } },
      { ...ok, raw: { stdout: { sha256: ok.raw.stdout!.sha256, size: -1 } } },
      { ...ok, raw: { '../x': ok.raw.stdout } },
      { ...ok, raw: [] },
    ];
    for (const b of bad) await expect(vault.putRecord(b as CaptureRecord)).rejects.toSatisfy(code('bad-record'));
  });

  it('reports unparseable record files instead of throwing, and ignores temp leftovers', async () => {
    const vault = await Vault.open(root, { create: true });
    const good = await storeCapture(vault, new Date(), 'x');
    await writeFile(join(vault.root, 'records', '20260101T000000Z-deadbeef.json'), '{not json', { mode: 0o600 });
    await writeFile(join(vault.root, 'records', `.${good.id}.json.abc123.tmp`), '{', { mode: 0o600 });
    await writeFile(join(vault.root, 'records', 'README'), 'stray', { mode: 0o600 });
    const { records, errors } = await vault.listRecords();
    expect(records.map((r) => r.id)).toEqual([good.id]);
    expect(errors).toEqual([{ file: '20260101T000000Z-deadbeef.json', error: expect.stringContaining('not valid JSON') }]);
  });

  it('rejects a record file whose content names another id', async () => {
    const vault = await Vault.open(root, { create: true });
    const r = await storeCapture(vault, new Date(), 'x');
    const other = '20200101T000000Z-00000000';
    await writeFile(join(vault.root, 'records', `${other}.json`), JSON.stringify(r), { mode: 0o600 });
    await expect(vault.getRecord(other)).rejects.toSatisfy(code('bad-record'));
  });
});

describe('verify', () => {
  it('is clean for a healthy vault and ignores temp files', async () => {
    const vault = await Vault.open(root, { create: true });
    await storeCapture(vault, new Date(), 'out', 'err');
    await writeFile(join(vault.root, 'tmp', 'raw-0123456789abcdef.part'), 'crash leftover', { mode: 0o600 });
    const report = await vault.verify();
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ rawFiles: 2, records: 1 });
  });

  it('finds a tampered raw file (same size, different bytes)', async () => {
    const vault = await Vault.open(root, { create: true });
    const r = await storeCapture(vault, new Date(), 'innocent output');
    const path = vault.rawPath(r.raw.stdout!.sha256);
    await writeFile(path, 'malicious outpu');
    const { problems } = await vault.verify();
    expect(problems).toEqual([expect.objectContaining({ problem: 'mismatch', sha256: r.raw.stdout!.sha256, path })]);
  });

  it('finds a missing raw file, but not when the record says it was pruned', async () => {
    const vault = await Vault.open(root, { create: true });
    const r = await storeCapture(vault, new Date(), 'gone soon', 'also');
    await unlink(vault.rawPath(r.raw.stdout!.sha256));
    expect((await vault.verify()).problems).toEqual([expect.objectContaining({ problem: 'missing', sha256: r.raw.stdout!.sha256, recordId: r.id })]);
    await vault.pruneRaw(0, new Date(Date.now() + 1000));
    expect((await vault.verify()).problems).toEqual([]);
  });

  it('finds bad modes on raw files, records, directories and the audit log', async () => {
    const vault = await Vault.open(root, { create: true });
    const r = await storeCapture(vault, new Date(), 'x');
    await chmod(vault.rawPath(r.raw.stdout!.sha256), 0o644);
    await chmod(join(vault.root, 'records', `${r.id}.json`), 0o604);
    await chmod(join(vault.root, 'tmp'), 0o755);
    await chmod(join(vault.root, 'audit.jsonl'), 0o666);
    const kinds = (await vault.verify()).problems.map((p) => [p.problem, p.path.slice(vault.root.length)]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['bad-mode', `/raw/sha256/${r.raw.stdout!.sha256.slice(0, 2)}/${r.raw.stdout!.sha256}`],
        ['bad-mode', `/records/${r.id}.json`],
        ['bad-mode', '/tmp'],
        ['bad-mode', '/audit.jsonl'],
      ]),
    );
    expect(kinds).toHaveLength(4);
  });

  it('flags a symlink in place of a raw file as unreadable and does not follow it', async () => {
    const vault = await Vault.open(root, { create: true });
    const outside = join(base, 'outside');
    await writeFile(outside, 'outside bytes');
    const digest = sha('outside bytes');
    await mkdir(join(vault.root, 'raw', 'sha256', digest.slice(0, 2)), { mode: 0o700 });
    await symlink(outside, vault.rawPath(digest));
    expect((await vault.verify()).problems).toEqual([expect.objectContaining({ problem: 'unreadable', sha256: digest, detail: 'not a regular file' })]);
  });

  it('flags strays, misplaced files, a size disagreement and bad records', async () => {
    const vault = await Vault.open(root, { create: true });
    const r = await storeCapture(vault, new Date(), 'abc');
    const d = r.raw.stdout!.sha256;
    await writeFile(join(vault.root, 'raw', 'sha256', 'junk'), 'x');
    await mkdir(join(vault.root, 'raw', 'sha256', 'zz'));
    await chmod(join(vault.root, 'raw', 'sha256', 'zz'), 0o700);
    // putRecord refuses a wrong size, so doctor the file directly
    await writeFile(join(vault.root, 'records', `${r.id}.json`), JSON.stringify({ ...r, raw: { stdout: { sha256: d, size: 999 } } }), { mode: 0o600 });
    await writeFile(join(vault.root, 'records', '20260101T000000Z-deadbeef.json'), '[]', { mode: 0o600 });
    const problems = (await vault.verify()).problems.map((p) => p.problem).sort();
    // The doctored record no longer matches what its audit entry committed to; the planted one has no entry.
    expect(problems).toEqual(['bad-record', 'edited', 'mismatch', 'stray', 'stray', 'unbound']);
  });
});

describe('pruneRaw', () => {
  const day = 86_400_000;
  const now = new Date('2026-06-30T12:00:00Z');

  it('deletes raw of old records only, keeps records and marks them raw_pruned_at', async () => {
    const vault = await Vault.open(root, { create: true });
    const old = await storeCapture(vault, new Date(now.getTime() - 10 * day), 'old output', 'old err');
    const fresh = await storeCapture(vault, new Date(now.getTime() - 1 * day), 'fresh output', 'fresh err');
    const result = await vault.pruneRaw(7 * day, now);
    expect(result.pruned.map((p) => p.sha256).sort()).toEqual([old.raw.stdout!.sha256, old.raw.stderr!.sha256].sort());
    expect(result.pruned.every((p) => p.reason === 'record-age' && p.records === 1)).toBe(true);
    expect(result.bytes).toBe('old output'.length + 'old err'.length);
    expect(result.recordsMarked).toEqual([old.id]);
    expect(await vault.hasRaw(old.raw.stdout!.sha256)).toBe(false);
    expect(await vault.hasRaw(fresh.raw.stdout!.sha256)).toBe(true);
    const kept = await vault.getRecord(old.id);
    expect(kept.raw_pruned_at).toBe(now.toISOString());
    expect(kept.sanitized).toEqual(old.sanitized);
    expect(kept.raw).toEqual(old.raw);
    expect(await mode(join(vault.root, 'records', `${old.id}.json`))).toBe(0o600);
    expect((await vault.verify()).problems).toEqual([]);
    // idempotent
    const again = await vault.pruneRaw(7 * day, now);
    expect(again.pruned).toEqual([]);
    expect(again.recordsMarked).toEqual([]);
  });

  it('keeps raw bytes shared with a newer record (e.g. the empty stderr)', async () => {
    const vault = await Vault.open(root, { create: true });
    const old = await storeCapture(vault, new Date(now.getTime() - 30 * day), 'a', '');
    const fresh = await storeCapture(vault, new Date(now.getTime() - day), 'b', '');
    const result = await vault.pruneRaw(7 * day, now);
    expect(result.pruned.map((p) => p.sha256)).toEqual([old.raw.stdout!.sha256]);
    expect(await vault.hasRaw(sha(''))).toBe(true);
    expect((await vault.getRecord(fresh.id)).raw_pruned_at).toBeUndefined();
    expect((await vault.verify()).problems).toEqual([]);
  });

  it('prunes orphan raw files by mtime, but not while a record file is unreadable', async () => {
    const vault = await Vault.open(root, { create: true });
    const orphanOld = await storeRaw(vault, 'orphan old');
    const orphanNew = await storeRaw(vault, 'orphan new');
    const past = new Date(now.getTime() - 8 * day);
    await utimes(vault.rawPath(orphanOld.sha256), past, past);
    await utimes(vault.rawPath(orphanNew.sha256), now, now);
    await writeFile(join(vault.root, 'records', '20260101T000000Z-deadbeef.json'), 'garbage', { mode: 0o600 });
    const cautious = await vault.pruneRaw(7 * day, now);
    expect(cautious.pruned).toEqual([]);
    expect(cautious.unreadableRecords).toEqual(['20260101T000000Z-deadbeef.json']);
    await unlink(join(vault.root, 'records', '20260101T000000Z-deadbeef.json'));
    const result = await vault.pruneRaw(7 * day, now);
    expect(result.pruned).toEqual([{ sha256: orphanOld.sha256, size: orphanOld.size, reason: 'orphan', records: 0 }]);
    expect(await vault.hasRaw(orphanNew.sha256)).toBe(true);
  });

  it('removes stale temp files but not fresh ones', async () => {
    const vault = await Vault.open(root, { create: true });
    const staleTmp = join(vault.root, 'tmp', 'raw-00000000000000aa.part');
    const liveTmp = join(vault.root, 'tmp', 'raw-00000000000000bb.part');
    const staleRec = join(vault.root, 'records', '.20260101T000000Z-deadbeef.json.0a0b0c.tmp');
    for (const p of [staleTmp, liveTmp, staleRec]) await writeFile(p, 'x');
    const old = new Date(now.getTime() - 2 * day);
    await utimes(staleTmp, old, old);
    await utimes(staleRec, old, old);
    await utimes(liveTmp, now, now);
    const result = await vault.pruneRaw(7 * day, now);
    expect(result.tempFilesRemoved).toBe(2);
    expect(await readdir(join(vault.root, 'tmp'))).toEqual(['raw-00000000000000bb.part']);
  });

  it('stops without deleting when beforeDelete throws (e.g. audit unavailable)', async () => {
    const vault = await Vault.open(root, { create: true });
    const old = await storeCapture(vault, new Date(now.getTime() - 10 * day), 'keep me');
    await expect(
      vault.pruneRaw(7 * day, now, {
        beforeDelete: () => {
          throw new Error('audit down');
        },
      }),
    ).rejects.toThrow('audit down');
    expect(await vault.hasRaw(old.raw.stdout!.sha256)).toBe(true);
  });

  it('rejects a negative or non-finite age', async () => {
    const vault = await Vault.open(root, { create: true });
    await expect(vault.pruneRaw(-1, now)).rejects.toThrow(RangeError);
    await expect(vault.pruneRaw(Number.NaN, now)).rejects.toThrow(RangeError);
  });
});
