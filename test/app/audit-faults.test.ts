// Issue #9, bug classes 3 and 4: the audit log under faults (full disk during an append, a lock
// file that could not be written, a torn tail before a capture) and a cut tail that must not
// verify as OK.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditCommand } from '../../app/cli/commands/audit';
import { captureCommand } from '../../app/cli/commands/capture';
import { AuditLog } from '../../app/audit';
import { Vault } from '../../app/vault';
import { runCommand } from '../helpers/cli';

let base: string;
let vdir: string;
beforeEach(async () => {
  base = mkdtempSync(join(tmpdir(), 'airlock-audit-faults-'));
  vdir = join(base, 'vault');
  await Vault.open(vdir, { create: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(base, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH };
const capture = (args: string[]) => runCommand(captureCommand, ['--vault', vdir, '--json', ...args], { env, cwd: base });
const audit = (args: string[]) => runCommand(auditCommand, [...args, '--vault', vdir], { env, cwd: base });

/** The prototype of node's FileHandle, whose methods the tests make fail like a full disk. */
async function fileHandlePrototype(): Promise<Record<string, (...args: unknown[]) => Promise<unknown>>> {
  const fh = await open(join(base, 'probe'), 'w');
  await fh.close();
  return Object.getPrototypeOf(fh);
}

const enospc = (): Error => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('audit appends under faults (bug class 3)', () => {
  it('rolls a failed append back to the previous size, so the next append works', async () => {
    const log = AuditLog.forVault(vdir);
    await log.append('vault.verified', { ok: true });
    const before = statSync(log.path).size;
    const proto = await fileHandlePrototype();
    const write = proto.write;
    // The disk fills halfway through the line: half of it lands, then ENOSPC.
    const spy = vi.spyOn(proto, 'write').mockImplementationOnce(async function (this: unknown, buf: unknown, off: unknown, len: unknown) {
      await write.call(this, buf, off, Math.floor((len as number) / 2));
      throw enospc();
    });
    await expect(log.append('vault.verified', { ok: true })).rejects.toThrow(/ENOSPC.*rolled back to its previous/);
    spy.mockRestore();
    expect(statSync(log.path).size).toBe(before);
    await log.append('vault.verified', { ok: true });
    expect(await log.verify()).toMatchObject({ ok: true, entries: 2 });
  });

  it('removes a lock file it could not write, so appends are not blocked', async () => {
    const log = AuditLog.forVault(vdir, { lock: { timeoutMs: 2000 } });
    const proto = await fileHandlePrototype();
    vi.spyOn(proto, 'writeFile').mockImplementationOnce(async () => {
      throw enospc();
    });
    await expect(log.append('vault.verified', { ok: true })).rejects.toThrow(/ENOSPC/);
    expect(existsSync(log.lockPath)).toBe(false);
    const t0 = Date.now();
    await log.append('vault.verified', { ok: true });
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('checks the tail before a capture runs its command: a capture that cannot be recorded does not run', async () => {
    const log = AuditLog.forVault(vdir);
    await log.append('vault.verified', { ok: true });
    writeFileSync(log.path, `${readFileSync(log.path, 'utf8')}{"seq":2,"ts":"20`); // a torn append
    const marker = join(base, 'ran');
    const r = await capture(['--', 'sh', '-c', `touch '${marker}'`]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/was not run.*partial line.*audit repair/);
    expect(existsSync(marker)).toBe(false);
    expect(readdirSync(join(vdir, 'records'))).toEqual([]);
  });

  it('keeps the output of a command that ran when the log breaks meanwhile, and says so', async () => {
    // Unsandboxed on purpose: the command itself breaks the log, which a sandbox would stop (it hides the vault).
    const r = await capture(['--sandbox', 'none', '--', 'sh', '-c', `printf '{"torn' >> '${join(vdir, 'audit.jsonl')}'; echo out`]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/capture stored as record \S+, but the audit log could not be appended/);
    expect(readdirSync(join(vdir, 'records'))).toHaveLength(1);
  });

  it('audit repair keeps the torn bytes aside, cuts the log back and audits the repair', async () => {
    const log = AuditLog.forVault(vdir);
    await log.append('vault.verified', { ok: true });
    const torn = '{"seq":2,"ts":"20';
    writeFileSync(log.path, `${readFileSync(log.path, 'utf8')}${torn}`);
    const r = await audit(['repair']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/repaired: line 2 \(17 bytes\) moved to .*audit\.torn-.*\.bin/);
    const aside = readdirSync(vdir).filter((n) => n.startsWith('audit.torn-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(vdir, aside[0]), 'utf8')).toBe(torn);
    expect(statSync(join(vdir, aside[0])).mode & 0o777).toBe(0o600);
    const entries = await log.list();
    expect(entries.map((e) => ('entry' in e ? e.entry.action : e.error))).toEqual(['vault.verified', 'audit.repaired']);
    expect((await audit(['verify'])).code).toBe(0);
    // Now a capture works again.
    expect((await capture(['--', 'true'])).code).toBe(0);
  });

  it('audit repair refuses a log broken before its last line, and changes nothing', async () => {
    const log = AuditLog.forVault(vdir);
    for (let i = 0; i < 3; i++) await log.append('vault.verified', { ok: true, n: i });
    const lines = readFileSync(log.path, 'utf8').split('\n');
    lines[0] = lines[0].replace('"n":0', '"n":7');
    writeFileSync(log.path, lines.join('\n'));
    const before = readFileSync(log.path);
    const r = await audit(['repair']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/broken at line 1 .*nothing was changed/);
    expect(readFileSync(log.path)).toEqual(before);
  });
});

/** Mounts a 1 MiB tmpfs (root only); undefined when this machine does not allow it. */
function smallDisk(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const mnt = join(base, 'disk');
  mkdirSync(mnt);
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mnt]).status === 0 ? mnt : undefined;
}

describe('audit appends on a real full disk (bug class 3)', () => {
  it('a short write at ENOSPC leaves the log at its previous size and appendable', async (ctx) => {
    const mnt = smallDisk();
    if (!mnt) return ctx.skip();
    try {
      const log = AuditLog.forVault(mnt);
      // Entries until the next one crosses into a new 4 KiB page, then fill the disk.
      while (statSync(log.path, { throwIfNoEntry: false }) === undefined || statSync(log.path).size % 4096 < 3900) {
        await log.append('vault.verified', { ok: true });
      }
      const filler = join(mnt, 'filler');
      const chunk = Buffer.alloc(4096);
      try {
        for (;;) writeFileSync(filler, chunk, { flag: 'a' });
      } catch {
        // ENOSPC: the disk is full
      }
      // One page left: the lock file gets it, the entry's new page does not fit.
      truncateSync(filler, statSync(filler).size - 4096);
      const before = statSync(log.path).size;
      await expect(log.append('vault.verified', { ok: true })).rejects.toThrow(/rolled back to its previous/);
      expect(statSync(log.path).size).toBe(before);
      rmSync(filler);
      await log.append('vault.verified', { ok: true });
      expect((await log.verify()).ok).toBe(true);
    } finally {
      spawnSync('umount', [mnt]);
    }
  });
});

describe('a cut audit tail does not verify (bug class 4)', () => {
  it('records need the entry that created them; head -n1 of a three-capture log is BROKEN', async () => {
    for (let i = 0; i < 3; i++) expect((await capture(['--', 'echo', String(i)])).code).toBe(0);
    const ok = await audit(['verify']);
    expect(ok.code).toBe(0);
    const head = /head: ([0-9a-f]{64})/.exec(ok.out)![1];
    const path = join(vdir, 'audit.jsonl');
    const first = readFileSync(path, 'utf8').split('\n')[0];
    truncateSync(path, Buffer.byteLength(first) + 1);
    const cut = await audit(['verify']);
    expect(cut.code).toBe(1);
    expect(cut.out).toMatch(/BROKEN: record \S+ has no audit entry that created it/);
    // Against the anchor too, and as JSON.
    const anchored = await audit(['verify', '--head', head, '--json']);
    expect(anchored.code).toBe(1);
    const report = JSON.parse(anchored.out);
    expect(report).toMatchObject({ ok: false, entries: 1, anchor: { hash: head, found: false } });
  });

  it('--head passes while the anchored entry is still in the log', async () => {
    expect((await capture(['--', 'true'])).code).toBe(0);
    const head = /head: ([0-9a-f]{64})/.exec((await audit(['verify'])).out)![1];
    expect((await capture(['--', 'true'])).code).toBe(0);
    const r = await audit(['verify', '--head', head]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`anchor ${head} is entry 2`); // capture.started, then capture.stored
    expect((await audit(['verify', '--head', 'abc'])).code).toBe(2);
  });
});
