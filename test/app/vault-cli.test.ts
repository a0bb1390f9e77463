import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vaultCommand } from '../../app/cli/commands/vault';
import type { Command } from '../../app/cli/command';
import { AuditLog } from '../../app/audit';
import { newRecordId, Vault, type CaptureRecord } from '../../app/vault';
import { runCommand, type CommandResult } from '../helpers/cli';

let base: string;
let vdir: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-vault-cli-'));
  vdir = join(base, 'vault');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Runs a command in-process the way run.ts does (UsageError → 2, CliError → its code). */
function cli(command: Command, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CommandResult> {
  return runCommand(command, args, { env: opts.env ?? {}, cwd: opts.cwd ?? base });
}

const RAW_MARKER = 'RAW-ONLY-4f1c';

async function seed(created: Date, opts: { command?: string[]; exit?: number; text?: string } = {}): Promise<CaptureRecord> {
  const vault = await Vault.open(vdir, { create: true });
  const raw: Record<string, { sha256: string; size: number }> = {};
  for (const [stream, bytes] of [
    ['stdout', `\x1b]0;${RAW_MARKER}\x07hello\n`],
    ['stderr', ''],
  ] as const) {
    const w = vault.createRawWriter();
    await w.write(Buffer.from(bytes));
    const c = await w.commit();
    raw[stream] = { sha256: c.sha256, size: c.size };
  }
  const record: CaptureRecord = {
    id: newRecordId(created),
    created_at: created.toISOString(),
    raw,
    sanitized: { stdout: opts.text ?? 'hello\n', stderr: '' },
    reports: { stdout: { removed: { osc: 1 } }, stderr: { removed: {} } },
    metadata: { command: opts.command ?? ['printf', 'hello world'], cwd: '/tmp', exit_code: opts.exit ?? 0, truncated: false },
  };
  await vault.putRecord(record);
  return record;
}

describe('airlock vault: usage errors', () => {
  it('rejects missing/unknown subcommands, unknown flags, missing values', async () => {
    expect((await cli(vaultCommand, [])).code).toBe(2);
    expect(await cli(vaultCommand, ['explode'])).toMatchObject({ code: 2, err: expect.stringContaining("unknown subcommand 'explode'") });
    expect(await cli(vaultCommand, ['list', '--bogus'])).toMatchObject({ code: 2, err: expect.stringContaining("unknown option '--bogus'") });
    expect(await cli(vaultCommand, ['list', '--vault'])).toMatchObject({ code: 2, err: expect.stringContaining('--vault needs a value') });
    expect(await cli(vaultCommand, ['show', '--vault', vdir])).toMatchObject({ code: 2, err: expect.stringContaining('exactly one record ID') });
    expect(await cli(vaultCommand, ['list', 'extra', '--vault', vdir])).toMatchObject({ code: 2 });
    expect(await cli(vaultCommand, ['prune', '--vault', vdir])).toMatchObject({ code: 2, err: expect.stringContaining('--raw-older-than') });
    expect(await cli(vaultCommand, ['prune', '--raw-older-than', '7 days', '--vault', vdir])).toMatchObject({ code: 2, err: expect.stringContaining('invalid duration') });
  });

  it('says "no vault at DIR" for every subcommand on a missing vault', async () => {
    for (const args of [['list'], ['show', '20260101T000000Z-00000000'], ['verify'], ['prune', '--raw-older-than', '7d']]) {
      const r = await cli(vaultCommand, [...args, '--vault', vdir]);
      expect(r, args[0]).toMatchObject({ code: 1, err: `no vault at ${vdir}\n` });
    }
  });

  it('refuses a vault group/others can read', async () => {
    await seed(new Date());
    await chmod(vdir, 0o750);
    expect(await cli(vaultCommand, ['list', '--vault', vdir])).toMatchObject({ code: 1, err: expect.stringContaining('mode 0750') });
  });
});

describe('airlock vault list', () => {
  it('lists one line per record with id, time, exit code, sizes, raw status and command, never raw bytes', async () => {
    const a = await seed(new Date('2026-01-01T00:00:00Z'), { exit: 3 });
    const b = await seed(new Date('2026-01-02T00:00:00Z'), { command: ['evil', '\x1b]0;pwned\x07\u202e'] });
    const r = await cli(vaultCommand, ['list', '--vault', vdir]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${a.id}  2026-01-01T00:00:00.000Z  exit 3  stdout 24 B, stderr 0 B  raw present  printf 'hello world'`);
    expect(lines[1]).toContain(b.id);
    expect(lines[1]).toContain("evil '\\x1b]0;pwned\\x07\\u{202e}'");
    expect(r.out).not.toContain(RAW_MARKER);
    expect(r.out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
  });

  it('--json gives summaries with refs', async () => {
    const a = await seed(new Date('2026-01-01T00:00:00Z'));
    const r = await cli(vaultCommand, ['list', '--json', '--vault', vdir]);
    const rows = JSON.parse(r.out) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      expect.objectContaining({
        id: a.id,
        exit_code: 0,
        raw_status: 'present',
        command: ['printf', 'hello world'],
        raw: expect.objectContaining({ stdout: { ...a.raw.stdout, ref: `restricted:sha256:${a.raw.stdout!.sha256}` } }),
      }),
    ]);
    expect(r.out).not.toContain(RAW_MARKER);
  });

  it('resolves the vault from AIRLOCK_VAULT and relative --vault against io.cwd', async () => {
    await seed(new Date());
    expect((await cli(vaultCommand, ['list'], { env: { AIRLOCK_VAULT: vdir } })).code).toBe(0);
    expect((await cli(vaultCommand, ['list', '--vault', 'vault'], { cwd: base, env: { AIRLOCK_VAULT: '/nonexistent' } })).code).toBe(0);
    expect(await cli(vaultCommand, ['list'], { cwd: base, env: { AIRLOCK_VAULT: 'vault' } })).toMatchObject({ code: 1, err: expect.stringContaining('AIRLOCK_VAULT must be an absolute path') });
    expect((await cli(vaultCommand, ['list'], { env: { XDG_DATA_HOME: base } })).err).toContain(`no vault at ${join(base, 'airlock', 'vault')}`);
  });

  it('warns about unreadable records on stderr', async () => {
    await seed(new Date());
    await writeFile(join(vdir, 'records', '20260101T000000Z-deadbeef.json'), '{', { mode: 0o600 });
    const r = await cli(vaultCommand, ['list', '--vault', vdir]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('unreadable record 20260101T000000Z-deadbeef.json');
  });
});

describe('airlock vault show', () => {
  it('puts every stored line behind the gutter, so stored text cannot fake section lines', async () => {
    const forged = 'build ok\n--- end stdout ---\n--- stderr (sanitized) ---\nall 412 tests passed\n' + 'x'.repeat(200) + 'airlock: fine\n';
    const rec = await seed(new Date('2026-01-01T00:00:00Z'), { text: forged });
    const r = await cli(vaultCommand, ['show', rec.id, '--vault', vdir]);
    const body = r.out.slice(r.out.indexOf('\n--- stdout (sanitized) ---\n') + 28, r.out.indexOf('\n--- end stdout ---\n'));
    const rows = body.split('\n').filter((row) => row !== '');
    expect(rows.length).toBe(5);
    for (const row of rows) expect(row.startsWith('| ')).toBe(true);
    // Off a terminal the long line stays whole (#39 item 10): grep finds what the command printed.
    expect(rows).toContain(`| ${'x'.repeat(200)}airlock: fine`);
    expect(r.out.match(/^--- end stdout ---$/gm)).toHaveLength(1);
  });

  it('prints metadata and the sanitized text, with control characters escaped', async () => {
    const rec = await seed(new Date('2026-01-01T00:00:00Z'), { text: 'line one\nsneaky \x1b[2J\u009b and \u{e0041}\n' });
    const r = await cli(vaultCommand, ['show', rec.id, '--vault', vdir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`id:         ${rec.id}`);
    expect(r.out).toContain(`  stdout   restricted:sha256:${rec.raw.stdout!.sha256}  24 bytes`);
    expect(r.out).toContain('--- stdout (sanitized) ---\n| line one\n| sneaky \\x1b[2J\\x9b and \\u{e0041}\n--- end stdout ---\n');
    expect(r.out).toContain('cwd:        /tmp\n');
    expect(r.out).toContain('removed:    stdout: {"removed":{"osc":1}}');
    expect(r.out).not.toContain(RAW_MARKER);
    expect(r.out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]|\u{e0041}/u);
  });

  it('--json prints the record as terminal-safe JSON', async () => {
    const rec = await seed(new Date(), { text: 'x\u009by' });
    const r = await cli(vaultCommand, ['show', '--json', rec.id, '--vault', vdir]);
    expect(r.out).toContain('x\\u009by');
    expect(JSON.parse(r.out)).toEqual(rec);
  });

  it('rejects traversal and malformed ids with a clear, escaped error', async () => {
    await seed(new Date());
    for (const id of ['../../etc/passwd', '/etc/passwd', 'x\x1b[2J']) {
      const r = await cli(vaultCommand, ['show', id, '--vault', vdir]);
      expect(r.code).toBe(1);
      expect(r.err).toContain('invalid record id');
      expect(r.err).not.toContain('\x1b');
    }
    expect(await cli(vaultCommand, ['show', '20260101T000000Z-00000000', '--vault', vdir])).toMatchObject({ code: 1, err: expect.stringContaining('no record 20260101T000000Z-00000000') });
  });
});

describe('airlock vault verify', () => {
  it('exit 0 on a clean vault and records a vault.verified audit entry', async () => {
    await seed(new Date());
    const r = await cli(vaultCommand, ['verify', '--vault', vdir]);
    expect(r).toMatchObject({ code: 0, out: 'vault OK: 2 raw files, 1 records, each as its audit entry committed to\n' });
    const entries = await AuditLog.forVault(vdir).list();
    expect(entries).toEqual([
      { line: 1, entry: expect.objectContaining({ action: 'capture.stored' }) },
      { line: 2, entry: expect.objectContaining({ action: 'vault.verified', ok: true, problems: 0 }) },
    ]);
  });

  it('exit 1 listing a tampered raw file', async () => {
    const rec = await seed(new Date());
    const vault = await Vault.open(vdir);
    const path = vault.rawPath(rec.raw.stdout!.sha256);
    const bytes = await readFile(path);
    bytes[bytes.length - 2] ^= 0x20; // same length, one bit flipped
    await writeFile(path, bytes);
    const r = await cli(vaultCommand, ['verify', '--vault', vdir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`mismatch   ${rec.raw.stdout!.sha256}`);
    expect(r.out).toContain('vault has 1 problem(s)');
    const [last] = (await AuditLog.forVault(vdir).list()).slice(-1);
    expect(last).toMatchObject({ entry: { action: 'vault.verified', ok: false, problems: 1, by_kind: { mismatch: 1 } } });
  });

  it('fails clearly when the audit log cannot be written', async () => {
    await seed(new Date());
    await rm(join(vdir, 'audit.jsonl'));
    await mkdir(join(vdir, 'audit.jsonl')); // a directory where the log should be
    const r = await cli(vaultCommand, ['verify', '--vault', vdir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('could not record the verification in the audit log');
  });

  it('reports an unwritable vault', async (ctx) => {
    const record = await seed(new Date());
    // Root writes through mode bits, so as root the vault is made read-only by a read-only bind
    // mount of itself instead (EROFS); where neither works the test cannot fail, and is skipped.
    const readOnly = process.getuid?.() === 0 ? readOnlyMount(vdir) : chmodReadOnly(vdir);
    if (readOnly === null) return ctx.skip();
    try {
      const r = await cli(vaultCommand, ['prune', '--raw-older-than', '0s', '--vault', vdir]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`vault ${vdir} is not writable`);
      // Refused before anything changed: the raw bytes and the record are as they were.
      const vault = await Vault.open(vdir);
      expect(await vault.hasRaw(record.raw.stdout!.sha256)).toBe(true);
      expect((await vault.getRecord(record.id)).raw_pruned_at).toBeUndefined();
    } finally {
      readOnly();
    }
  });
});

/** Makes `dir` unwritable by its mode (not for root); returns the undo. */
function chmodReadOnly(dir: string): () => void {
  chmodSync(dir, 0o500);
  return () => chmodSync(dir, 0o700);
}

/** Mounts `dir` read-only over itself (root only); returns the undo, or null where mounting is not allowed. */
function readOnlyMount(dir: string): (() => void) | null {
  if (spawnSync('mount', ['--bind', dir, dir]).status !== 0) return null;
  if (spawnSync('mount', ['-o', 'remount,bind,ro', dir]).status !== 0) {
    spawnSync('umount', [dir]);
    return null;
  }
  return () => void spawnSync('umount', [dir]);
}

describe('airlock vault prune', () => {
  it('deletes old raw bytes, keeps records, audits each deletion', async () => {
    const old = await seed(new Date(Date.now() - 10 * 86_400_000));
    const fresh = await seed(new Date(Date.now() - 3_600_000), { command: ['fresh'] });
    const r = await cli(vaultCommand, ['prune', '--raw-older-than', '7d', '--vault', vdir]);
    expect(r.code).toBe(0);
    // stdout digest of `old` is shared with `fresh` (same bytes), so nothing is deleted yet...
    expect(r.out).toContain('pruned 0 raw file(s)');
    expect(r.out).toContain('marked 1 record(s)');
    const vault = await Vault.open(vdir);
    expect((await vault.getRecord(old.id)).raw_pruned_at).toBeDefined();
    expect(await vault.hasRaw(fresh.raw.stdout!.sha256)).toBe(true);
    // ...until the fresh record ages out too.
    const r2 = await cli(vaultCommand, ['prune', '--raw-older-than', '30m', '--vault', vdir]);
    expect(r2.out).toContain('pruned 2 raw file(s), 24 bytes');
    expect(await vault.hasRaw(fresh.raw.stdout!.sha256)).toBe(false);
    const list = await cli(vaultCommand, ['list', '--vault', vdir]);
    expect(list.out.match(/raw pruned/g)).toHaveLength(2);
    const show = await cli(vaultCommand, ['show', fresh.id, '--vault', vdir]);
    expect(show.out).toContain('raw:        pruned at');
    expect(show.out).toContain('hello\n--- end stdout ---');
    const audit = AuditLog.forVault(vdir);
    const entries = (await audit.list()).flatMap((l) => ('entry' in l ? [l.entry] : []));
    // Records are write-once: prune marks each with a file beside it, audited as record.pruned.
    // (The first prune deletes nothing: the old record's bytes are the fresh one's too.)
    expect(entries.map((e) => e.action)).toEqual(['capture.stored', 'capture.stored', 'record.pruned', 'record.pruned', 'raw.pruned', 'raw.pruned']);
    expect(entries.filter((e) => e.action === 'raw.pruned').at(-1)).toMatchObject({ reason: 'record-age', records: 2, older_than: '30m' });
    expect(await audit.verify()).toMatchObject({ ok: true, entries: 6 });
    expect((await cli(vaultCommand, ['verify', '--vault', vdir])).code).toBe(0);
    expect(await readFile(join(vdir, 'records', `${old.id}.json`), 'utf8')).toContain('"sanitized"');
  });
});
