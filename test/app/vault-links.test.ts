// Links planted inside a vault must not steer raw bytes (or a chmod) elsewhere, and verify must
// see every directory's mode; a vault reached through a link to its root is still one vault.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Vault } from '../../app/vault';

let base: string;
let vdir: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-vault-links-'));
  vdir = join(base, 'vault');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function store(vault: Vault, text: string): Promise<string> {
  const w = vault.createRawWriter();
  await w.write(Buffer.from(text));
  return (await w.commit()).sha256;
}

describe('vault and symbolic links', () => {
  it('refuses a raw prefix directory that is a link, and leaves its target alone', async () => {
    const vault = await Vault.open(vdir, { create: true });
    const outside = join(base, 'outside');
    mkdirSync(outside, { mode: 0o755 });
    chmodSync(outside, 0o755);
    // sha256("hello") starts with 2c.
    symlinkSync(outside, join(vdir, 'raw', 'sha256', '2c'));
    await expect(store(vault, 'hello')).rejects.toThrow(/2c is a symbolic link; refusing to use it/);
    expect(readdirSync(outside)).toEqual([]);
    expect(statSync(outside).mode & 0o777).toBe(0o755);
  });

  it('verify reports a prefix directory with a loose mode', async () => {
    const vault = await Vault.open(vdir, { create: true });
    const digest = await store(vault, 'hello');
    chmodSync(join(vdir, 'raw', 'sha256', digest.slice(0, 2)), 0o755);
    const report = await vault.verify();
    expect(report.problems).toEqual([expect.objectContaining({ problem: 'bad-mode', detail: 'mode 0755, expected 0700' })]);
  });

  it('verify accepts a vault opened through a link to its root', async () => {
    const vault = await Vault.open(vdir, { create: true });
    await store(vault, 'hello');
    const link = join(base, 'vault-link');
    symlinkSync(vdir, link);
    const viaLink = await Vault.open(link);
    expect((await viaLink.verify()).problems).toEqual([]);
  });
});
