import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditCommand } from '../../app/cli/commands/audit';
import { AuditLog } from '../../app/audit';
import { newRecordId, Vault } from '../../app/vault';
import { runCommand, type CommandResult } from '../helpers/cli';

let base: string;
let vdir: string;
beforeEach(async () => {
  base = mkdtempSync(join(tmpdir(), 'airlock-audit-cli-'));
  vdir = join(base, 'vault');
  await Vault.open(vdir, { create: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function audit(args: string[]): Promise<CommandResult> {
  return runCommand(auditCommand, args, { cwd: base });
}

async function appendSome(n: number): Promise<string> {
  const log = AuditLog.forVault(vdir, { actor: { user: 'bob', host: 'h' } });
  for (let i = 0; i < n; i++) await log.append('raw.requested', { sha256: i.toString(16).padStart(64, '0'), reason: `ticket-${i}` });
  return log.path;
}

describe('airlock audit verify', () => {
  it('reports an intact log with its entry count and head hash', async () => {
    await appendSome(3);
    const r = await audit(['verify', '--vault', vdir]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^audit log OK: 3 entries; 0 records, their prune markers and the review requests each as its entry committed to\nhead: [0-9a-f]{64}\n$/);
  });

  it('an empty vault has an empty, valid log', async () => {
    expect(await audit(['verify', '--vault', vdir])).toMatchObject({ code: 0, out: expect.stringContaining('audit log OK: 0 entries') });
  });

  it('names the first bad line of a tampered log', async () => {
    const path = await appendSome(4);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[1] = lines[1]!.replace('ticket-1', 'ticket-9');
    await writeFile(path, lines.join('\n'));
    const r = await audit(['verify', '--vault', vdir]);
    expect(r).toMatchObject({ code: 1, out: 'audit log BROKEN at line 2: hash does not match the entry content (entry edited)\n' });
  });

  it('treats a deleted log as broken when the vault holds records', async () => {
    const vault = await Vault.open(vdir);
    const w = vault.createRawWriter();
    const c = await w.commit();
    await vault.putRecord({ id: newRecordId(), created_at: new Date().toISOString(), raw: { stdout: { sha256: c.sha256, size: 0 } } });
    const path = await appendSome(1);
    await rm(path);
    expect(await audit(['verify', '--vault', vdir])).toMatchObject({ code: 1, out: expect.stringContaining('BROKEN at line 1: the log is empty or missing') });
  });

  it('usage and vault errors', async () => {
    expect((await audit([])).code).toBe(2);
    expect((await audit(['verify', '--bogus', '--vault', vdir])).code).toBe(2);
    expect((await audit(['nope'])).code).toBe(2);
    const missing = join(base, 'missing');
    expect(await audit(['verify', '--vault', missing])).toMatchObject({ code: 1, err: `no vault at ${missing}\n` });
    expect(await audit(['list', '--vault', missing])).toMatchObject({ code: 1, err: `no vault at ${missing}\n` });
  });
});

describe('airlock audit list', () => {
  it('prints one terminal-safe line per entry', async () => {
    await appendSome(2);
    const r = await audit(['list', '--vault', vdir]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ {4}1 {2}\S+Z {2}bob@h {2}raw\.requested {2}sha256=0{64} {2}reason=ticket-0$/);
  });

  it('escapes control bytes smuggled into the file by hand, and flags bad lines', async () => {
    const path = await appendSome(1);
    const text = await readFile(path, 'utf8');
    await writeFile(path, `${text.replace('ticket-0', 'ticket\\u001b]0;pwn\\u0007\\u009b')}not json\n`);
    const r = await audit(['list', '--vault', vdir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('reason=ticket\\x1b]0;pwn\\x07\\x9b');
    expect(r.out).toContain('line 2: unreadable (not valid JSON)');
    expect(r.out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    const j = await audit(['list', '--json', '--vault', vdir]);
    const parsed = JSON.parse(j.out) as Array<Record<string, unknown>>;
    expect(parsed[0]).toMatchObject({ seq: 1, reason: 'ticket\x1b]0;pwn\x07\u009b' });
    expect(parsed[1]).toEqual({ line: 2, error: 'not valid JSON' });
    expect(j.out).not.toContain('\u009b');
  });
});
