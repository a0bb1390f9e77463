// Issue #9, friction a user hit: one-line usage errors, --version, one size/offset parser, --json
// everywhere the README promises it, vault show by prefix or `latest`, prune --dry-run, and
// `inspect restricted:sha256:…` that audits the access.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseByteCount } from '../../app/cli/size';
import { AuditLog } from '../../app/audit';
import { Vault } from '../../app/vault';
import packageJson from '../../package.json' with { type: 'json' };
import { runAirlock } from '../helpers/cli';

let dir: string;
let vdir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-friction-'));
  vdir = join(dir, 'vault');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH };
const run = (argv: string[]) => runAirlock(argv, { env, cwd: dir });

async function captureJson(argv: string[]): Promise<Record<string, unknown>> {
  const r = await run(['capture', '--vault', vdir, '--json', '--', ...argv]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out.toString('utf8'));
}

describe('usage errors and --version', () => {
  it.each([
    [['vault', 'list', '--bogus'], /^airlock vault: unknown option '--bogus' \(see 'airlock vault --help'\)\n$/],
    [['sanitize', '--max-bytes', 'lots'], /^airlock sanitize: --max-bytes needs .* \(see 'airlock sanitize --help'\)\n$/],
    [['inspect'], /^airlock inspect: give exactly one FILE.*\n$/],
    [['nope'], /^airlock: unknown command 'nope'; run 'airlock --help' for the list\n$/],
    [[], /^airlock: missing command; run 'airlock --help' for the list\n$/],
  ])('%j prints one line and a pointer to --help', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toContain('Usage:');
  });

  it('airlock --version', async () => {
    const r = await run(['--version']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out.toString()).toBe(`airlock ${packageJson.version}\n`);
  });
});

describe('one size and offset parser', () => {
  it('accepts decimal, 0x hex and binary units everywhere', () => {
    expect(parseByteCount('--x', '0x40')).toBe(64);
    expect(parseByteCount('--x', '60M')).toBe(60 * 1024 * 1024);
    expect(parseByteCount('--x', '16MiB')).toBe(16 * 1024 * 1024);
    expect(parseByteCount('--x', '0', { allowZero: true })).toBe(0);
    for (const bad of ['0', '-1', '1.5M', '0x', 'ten', ' 1', '1T']) expect(() => parseByteCount('--x', bad), bad).toThrow(/--x needs/);
  });

  it('inspect takes 0x40 and 1K for --offset and --length alike', async () => {
    const file = join(dir, 'f.bin');
    writeFileSync(file, Buffer.alloc(4096, 0x61));
    const r = await run(['inspect', file, '--offset', '1K', '--length', '0x20']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.toString().match(/^[0-9a-f]{8} {2}/gm)).toEqual(['00000400  ', '00000410  ']);
  });
});

describe('--json outputs', () => {
  it('vault verify, vault prune and the inspect summary', async () => {
    await captureJson(['echo', 'hi']);
    const verify = await run(['vault', 'verify', '--vault', vdir, '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.out.toString())).toMatchObject({ ok: true, records: 1, problems: [] });
    const prune = await run(['vault', 'prune', '--raw-older-than', '7d', '--vault', vdir, '--json']);
    expect(prune.code).toBe(0);
    expect(JSON.parse(prune.out.toString())).toMatchObject({ dry_run: false, refused: false, pruned: [] });
    const file = join(dir, 'f.bin');
    writeFileSync(file, 'a\x1b[31mb\n');
    const inspect = await run(['inspect', file, '--json']);
    const summary = JSON.parse(inspect.out.toString());
    expect(summary).toMatchObject({ source: file, bytes: 8, report: { classes: { csi: { count: 1 } } } });
    expect(summary.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('vault show by prefix or latest, prune --dry-run', () => {
  it('resolves a unique prefix and latest, and refuses an ambiguous prefix', async () => {
    const a = await captureJson(['echo', 'one']);
    const b = await captureJson(['echo', 'two']);
    const latest = await run(['vault', 'show', 'latest', '--vault', vdir]);
    expect(latest.out.toString()).toContain(`id:         ${String(b.record)}`);
    const one = await run(['vault', 'show', String(a.record).slice(0, -2), '--vault', vdir]);
    expect(one.out.toString()).toContain(`id:         ${String(a.record)}`);
    expect(one.out.toString()).toContain('command:    echo one\n');
    const shared = String(a.record).slice(0, 8);
    const ambiguous = await run(['vault', 'show', shared, '--vault', vdir]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err).toMatch(/is the start of 2 record ids/);
  });

  it('--dry-run says what would go and changes nothing', async () => {
    const env1 = await captureJson(['echo', 'old']);
    const ref = String((env1.raw_artifacts as Record<string, string>).stdout).slice('restricted:sha256:'.length);
    const r = await run(['vault', 'prune', '--raw-older-than', '0s', '--dry-run', '--vault', vdir]);
    expect(r.code).toBe(0);
    expect(r.out.toString()).toMatch(/^\(dry run, nothing changed\) would prune 2 raw file\(s\)/);
    const vault = await Vault.open(vdir);
    expect(await vault.hasRaw(ref)).toBe(true);
    expect((await vault.getRecord(String(env1.record))).raw_pruned_at).toBeUndefined();
    expect((await AuditLog.forVault(vdir).list()).map((l) => ('entry' in l ? l.entry.action : ''))).toEqual(['capture.started', 'capture.stored']);
  });
});

describe('inspect restricted:sha256:…', () => {
  it('opens a vault artifact by reference and audits who opened which digest and range', async () => {
    const envelope = await captureJson(['sh', '-c', 'printf "x\\033]0;t\\007y"']);
    const ref = (envelope.raw_artifacts as Record<string, string>).stdout;
    const r = await run(['inspect', ref, '--vault', vdir, '--length', '16']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.toString()).toContain(`airlock inspect: ${ref}\n`);
    expect(r.out.toString()).toContain('|x^[]0;t^Gy|');
    const last = (await AuditLog.forVault(vdir).list()).at(-1)!;
    expect(last).toMatchObject({ entry: { action: 'raw.opened', sha256: ref.slice(-64), via: 'airlock inspect', view: 'hex-dump', offset: 0, length: 16 } });
    expect((last as { entry: { actor: { user: string } } }).entry.actor.user).toMatch(/\S/);
  });

  it('refuses a malformed or unknown reference, and opens nothing without its audit entry', async () => {
    await captureJson(['true']);
    expect((await run(['inspect', 'restricted:sha256:XYZ', '--vault', vdir])).err).toMatch(/invalid raw artifact reference/);
    const unknown = await run(['inspect', `restricted:sha256:${'0'.repeat(64)}`, '--vault', vdir]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/is not in vault/);
    const log = join(vdir, 'audit.jsonl');
    writeFileSync(log, `${readFileSync(log, 'utf8')}{"torn`);
    const ref = `restricted:sha256:${'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'}`;
    const blocked = await run(['inspect', ref, '--vault', vdir]);
    expect(blocked.code).toBe(1);
    expect(blocked.err).toMatch(/partial line/);
    expect(blocked.out.toString()).toBe('');
    expect(existsSync(log)).toBe(true);
  });
});
