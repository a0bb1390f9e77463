import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseVault, parseAppOptions } from '../../../app/main/options';

describe('app options', () => {
  it('reads --vault, --open and the grant lifetime', () => {
    expect(parseAppOptions(['electron', 'main.cjs', '--vault=/v', '--open=/f.log'], {})).toEqual({ vault: '/v', open: '/f.log', grantTtlMs: 15 * 60_000 });
    expect(parseAppOptions([], { AIRLOCK_VAULT: '/e', AIRLOCK_GRANT_TTL_MS: '60000' })).toEqual({ vault: '/e', open: null, grantTtlMs: 60_000 });
    expect(parseAppOptions([], { AIRLOCK_GRANT_TTL_MS: '5' }).grantTtlMs).toBe(15 * 60_000);
    expect(parseAppOptions([], { AIRLOCK_GRANT_TTL_MS: 'soon' }).grantTtlMs).toBe(15 * 60_000);
  });

  it('opens the given vault, else the default one if it is a vault, else the demo (null)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'airlock-opts-'));
    try {
      const env = { XDG_DATA_HOME: home };
      expect(chooseVault(parseAppOptions(['--vault=/x'], env), env)).toBe('/x');
      expect(chooseVault(parseAppOptions([], env), env)).toBeNull();
      await mkdir(join(home, 'airlock/vault/records'), { recursive: true });
      expect(chooseVault(parseAppOptions([], env), env)).toBe(join(home, 'airlock/vault'));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
