// Issue #9, bug class 8 (the small ones): a relative AIRLOCK_VAULT is refused, `vault list`
// orders by capture time, a command killed by a signal shows the signal, and prune exits non-zero
// when it refused to delete.
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Vault, type CaptureRecord } from '../../app/vault';
import { runAirlock } from '../helpers/cli';

let base: string;
let vdir: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-vault-small-'));
  vdir = join(base, 'vault');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function put(id: string, createdAt: string, metadata: Record<string, unknown>): Promise<CaptureRecord> {
  const vault = await Vault.open(vdir, { create: true });
  const w = vault.createRawWriter();
  const c = await w.commit();
  const record: CaptureRecord = { id, created_at: createdAt, raw: { stdout: { sha256: c.sha256, size: 0 } }, metadata };
  await vault.putRecord(record);
  return record;
}

describe('small ones (bug class 8)', () => {
  it('refuses a relative AIRLOCK_VAULT (an unexpanded ~) instead of resolving it against the cwd', async () => {
    for (const argv of [['vault', 'list'], ['capture', '--', 'true'], ['audit', 'verify']]) {
      const r = await runAirlock(argv, { env: { PATH: process.env.PATH, AIRLOCK_VAULT: '~/vault' }, cwd: base });
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err).toMatch(/AIRLOCK_VAULT must be an absolute path, not '~\/vault'/);
    }
  });

  it('vault list orders by capture time, not by the random part of the id', async () => {
    await put('20260101T000000Z-ffffffff', '2026-01-01T00:00:00.900Z', { started_at: '2026-01-01T00:00:00.100Z', command: 'first' });
    await put('20260101T000000Z-00000000', '2026-01-01T00:00:00.950Z', { started_at: '2026-01-01T00:00:00.500Z', command: 'second' });
    const r = await runAirlock(['vault', 'list', '--vault', vdir], { cwd: base });
    expect(r.out.toString().trimEnd().split('\n').map((l) => l.split('  ').at(-1))).toEqual(['first', 'second']);
  });

  it('a capture killed by a signal shows the signal, in list and show', async () => {
    await put('20260101T000000Z-00000001', '2026-01-01T00:00:00.000Z', { command: 'sleep 9', exit_code: null, signal: 'SIGKILL', exit_status: 137 });
    const list = (await runAirlock(['vault', 'list', '--vault', vdir], { cwd: base })).out.toString();
    expect(list).toContain('  killed by SIGKILL  ');
    expect(list).not.toContain('exit -');
    const show = (await runAirlock(['vault', 'show', 'latest', '--vault', vdir], { cwd: base })).out.toString();
    expect(show).toContain('exit:       killed by SIGKILL; airlock capture exited 137\n');
  });

  it('prune exits non-zero when it refused to delete because a record is unreadable', async () => {
    await put('20200101T000000Z-00000002', '2020-01-01T00:00:00.000Z', { command: 'old' });
    await writeFile(join(vdir, 'records', '20200101T000000Z-deadbeef.json'), '{', { mode: 0o600 });
    const r = await runAirlock(['vault', 'prune', '--raw-older-than', '1d', '--vault', vdir], { cwd: base });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no raw file was deleted/);
    expect(await (await Vault.open(vdir)).hasRaw((await (await Vault.open(vdir)).getRecord('20200101T000000Z-00000002')).raw.stdout.sha256)).toBe(true);
  });
});
