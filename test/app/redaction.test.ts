import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureCommand } from '../../app/cli/commands/capture';
import type { CaptureEnvelope } from '../../app/capture';
import { MCP_MAX_INLINE_TEXT } from '../../app/mcp/tools/capture';
import { Vault } from '../../app/vault';
import { checkMarkers, markerText, RULES } from '../../shared/redact';
import { runCommand } from '../helpers/cli';
import { fixturesIn } from '../helpers/fixtures';
import { startMcp, textOf, type McpPair } from '../helpers/mcp';
// @ts-expect-error -- a plain .mjs fixture
import { BENIGN, KEY_BODY, SECRETS } from '../fixtures/secrets/credentials.mjs';

/**
 * The fixture as an MCP capture runs it: the test server's working directory is this checkout,
 * which its sandbox shows. CLI captures here run in `base`, and their sandbox shows that, not the
 * checkout: they run the copy `beforeAll` puts there (PRINT_IN_BASE).
 */
const PRINT = resolve(__dirname, '../fixtures/secrets/print-secrets.mjs');
let PRINT_IN_BASE = '';
const secrets = SECRETS as { rule: string; values: string[] }[];
/** Every value the fixture prints that must not reach the text. */
const VALUES = [...secrets.flatMap((s) => s.values), ...(KEY_BODY as string[]), 'oSn9qpK2rz', 's3cr3t-', 'abc.def-GHI_123'];

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'airlock-redact-'));
  PRINT_IN_BASE = join(fixturesIn(base, 'secrets'), 'print-secrets.mjs');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function captureJson(vault: string, ...extra: string[]): Promise<{ code: number; env: CaptureEnvelope; out: string; err: string }> {
  const r = await runCommand(captureCommand, ['--vault', vault, '--json', ...extra, '--', process.execPath, PRINT_IN_BASE], { env: { PATH: process.env.PATH }, cwd: base });
  return { code: r.code, env: r.code === 0 ? (JSON.parse(r.out) as CaptureEnvelope) : (null as unknown as CaptureEnvelope), out: r.out, err: r.err };
}

/** Checks an envelope-like result: no value anywhere, every rule counted, benign lines whole, markers listed. */
function expectRedacted(env: Pick<CaptureEnvelope, 'stdout' | 'stderr' | 'redaction'>, whole: string): void {
  for (const v of VALUES) expect(whole, v).not.toContain(v);
  const rules = env.redaction.stdout.rules;
  for (const rule of RULES) expect(rules[rule.id] ?? 0, rule.id).toBeGreaterThan(0);
  expect(env.redaction.stderr.rules).toEqual({ 'authorization-header': 1 });
  for (const line of BENIGN as string[]) expect(env.stdout).toContain(`${line}\n`);
  expect(env.stdout).toContain(`split: ${markerText('github-token')}\n`);
  expect(env.stdout).toContain(`zw: ${markerText('aws-access-key-id')} and ${markerText('stripe-key')}\n`);
  expect(env.stdout).toContain(`reads: postgres://app:${markerText('database-url-password')}@db.internal:5432/app and ${markerText('github-token')}\n${markerText('private-key')}\n`);
  expect(env.stdout.endsWith(markerText('private-key'))).toBe(true);
  expect(checkMarkers(env.stdout, env.redaction.stdout.redactions)).toEqual([]);
  expect(checkMarkers(env.stderr, env.redaction.stderr.redactions)).toEqual([]);
  // Counts and positions only: no value, no hash of one.
  expect(JSON.stringify(env.redaction)).not.toMatch(/[0-9a-f]{64}/);
}

describe('airlock capture --json', () => {
  it('hands out none of the values of every kind, split by escapes, zero-width characters and reads; counts each by rule', async () => {
    const vault = join(base, 'v1');
    const { code, env, out, err } = await captureJson(vault);
    expect(err).toBe('');
    expect(code).toBe(0);
    expectRedacted(env, out);
    expect(env.redaction.policy).toMatchObject({ mode: 'on', ruleset: 'airlock-secrets', version: 2, allowlist: null });
    // The record stores the same redacted text and notes the suspected secrets of its raw bytes.
    const record = await (await Vault.open(vault)).getRecord(env.record);
    expect(record.sanitized).toEqual({ stdout: env.stdout, stderr: env.stderr });
    expect(record.raw_suspected_secrets).toMatchObject({ stdout: { count: env.redaction.stdout.count }, stderr: { count: 1, rules: { 'authorization-header': 1 } } });
    for (const v of VALUES) expect(JSON.stringify(record), v).not.toContain(v);
  });

  it('marks redactions the same way in the human rendering', async () => {
    const r = await runCommand(captureCommand, ['--vault', join(base, 'v2'), '--', process.execPath, PRINT_IN_BASE], { env: { PATH: process.env.PATH }, cwd: base });
    expect(r.code).toBe(0);
    for (const v of VALUES) expect(r.out, v).not.toContain(v);
    expect(r.out).toContain(`| split: ${markerText('github-token')}\n`);
    expect(r.out).toMatch(/^airlock: redacted: \d+ \(.*github-token \d+.*\) as ⟦redacted:RULE⟧$/m);
  });

  it('--redact off leaves the text as it is, still counts, and says so; read_text still redacts that record', async () => {
    const vault = join(base, 'v3');
    const { code, env } = await captureJson(vault, '--redact', 'off');
    expect(code).toBe(0);
    expect(env.stdout).toContain('ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf');
    expect(env.redaction.policy.mode).toBe('off');
    expect(env.redaction.stdout.count).toBeGreaterThan(RULES.length);
    expect(env.redaction.stdout.redactions).toEqual([]);
    const mcp = await startMcp(vault);
    try {
      const r = await mcp.call('read_text', { record: env.record, max_lines: 2000, max_bytes: 256 * 1024 });
      const text = (r.structuredContent as { text: string }).text;
      expect(text).toContain(markerText('github-token'));
      for (const v of VALUES) expect(textOf(r), v).not.toContain(v);
    } finally {
      await mcp.close();
    }
  });

  it('--redact takes on or off only', async () => {
    const r = await runCommand(captureCommand, ['--vault', join(base, 'v4'), '--redact', 'maybe', '--', 'true'], { env: { PATH: process.env.PATH }, cwd: base });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--redact takes on or off/);
  });

  it("applies the vault's allowlist, records its digest, and refuses a bad or group-writable one before running anything", async () => {
    const vault = join(base, 'v5');
    await Vault.open(vault, { create: true });
    const file = join(vault, 'redact-allowlist');
    writeFileSync(file, '# accepted in this team\ndisable jwt\nallow-line database-url-password /@db\\.internal:/\n', { mode: 0o600 });
    const { env } = await captureJson(vault);
    expect(env.redaction.policy.allowlist).toMatchObject({ file: 'redact-allowlist', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), entries: 2 });
    expect(env.redaction.policy.rules).not.toContain('jwt');
    expect(env.stdout).toContain('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0');
    expect(env.stdout).toContain('postgres://app:s3cr3t-Pa55@db.internal:5432/app');
    expect(env.redaction.stdout.rules.jwt).toBeUndefined();
    chmodSync(file, 0o666);
    const bad = await captureJson(vault);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/redaction allowlist: .*writable by group or others.*nothing was run/);
    chmodSync(file, 0o600);
    writeFileSync(file, 'allow github-token /ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf/\n');
    const plain = await captureJson(vault);
    expect(plain.code).toBe(1);
    expect(plain.err).toMatch(/line 1: a plain value is not stored/);
  });
});

describe('MCP capture', () => {
  let mcp: McpPair;
  beforeAll(async () => {
    mcp = await startMcp(join(base, 'mcp-vault'));
  });
  afterAll(async () => mcp.close());

  it('returns no value in structured content or text, counted by rule, with markers listed where the result shows them', async () => {
    const r = await mcp.call('capture', { argv: [process.execPath, PRINT], inline_text: MCP_MAX_INLINE_TEXT });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as unknown as CaptureEnvelope;
    expectRedacted(s, JSON.stringify(r));
  });

  it('lists only the markers the inline window keeps, at their place in it', async () => {
    const r = await mcp.call('capture', { argv: [process.execPath, PRINT], inline_text: 2048 });
    const s = r.structuredContent as unknown as CaptureEnvelope & { inline: { stdout: unknown } };
    expect(s.inline.stdout).not.toBeNull();
    expect(s.redaction.stdout.redactions.length).toBeGreaterThan(0);
    expect(s.redaction.stdout.redactions.length).toBeLessThan(s.redaction.stdout.count);
    expect(checkMarkers(s.stdout, s.redaction.stdout.redactions)).toEqual([]);
    for (const v of VALUES) expect(JSON.stringify(r), v).not.toContain(v);
  });

  it('has no option to turn redaction off: an agent asking for it still gets redacted text', async () => {
    const { tools } = await mcp.client.listTools();
    const capture = tools.find((t) => t.name === 'capture')!;
    expect(Object.keys(capture.inputSchema.properties ?? {})).not.toContain('redact');
    const r = await mcp.call('capture', { argv: [process.execPath, PRINT], redact: 'off', inline_text: MCP_MAX_INLINE_TEXT });
    const s = r.structuredContent as unknown as CaptureEnvelope;
    expect(s.redaction.policy.mode).toBe('on');
    expectRedacted(s, JSON.stringify(r));
  });
});

describe('vault prune --raw-with-secrets-older-than', () => {
  it('prunes the raw bytes of records that note suspected secrets sooner, and keeps the others', async () => {
    const vault = join(base, 'v-prune');
    const withSecret = await captureJson(vault);
    const plainRun = await runCommand(captureCommand, ['--vault', vault, '--json', '--', 'echo', 'nothing secret here'], { env: { PATH: process.env.PATH }, cwd: base });
    const plain = JSON.parse(plainRun.out) as CaptureEnvelope;
    expect(plain.redaction.stdout.count).toBe(0);
    const { vaultCommand } = await import('../../app/cli/commands/vault');
    // Both records are seconds old: younger than an hour (nothing pruned), older than 0s (the
    // one with secrets pruned); the other keeps its raw bytes for 30 days either way.
    const r = await runCommand(vaultCommand, ['prune', '--vault', vault, '--raw-with-secrets-older-than', '1h', '--raw-older-than', '30d', '--json'], { env: {}, cwd: base });
    const r2 = await runCommand(vaultCommand, ['prune', '--vault', vault, '--raw-with-secrets-older-than', '0s', '--raw-older-than', '30d', '--json'], { env: {}, cwd: base });
    expect(r.err + r2.err).toBe('');
    expect(r.code).toBe(0);
    expect(r2.code).toBe(0);
    expect((JSON.parse(r.out) as { recordsMarked: string[] }).recordsMarked).toEqual([]);
    const out = JSON.parse(r2.out) as { recordsMarked: string[] };
    expect(out.recordsMarked).toEqual([withSecret.env.record]);
    const v = await Vault.open(vault);
    expect((await v.getRecord(withSecret.env.record)).raw_pruned_at).toBeDefined();
    expect((await v.getRecord(plain.record)).raw_pruned_at).toBeUndefined();
    const usage = await runCommand(vaultCommand, ['prune', '--vault', vault], { env: {}, cwd: base });
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/--raw-older-than DURATION .* or --raw-with-secrets-older-than/);
  });
});

describe('other text agents read', () => {
  it('a review-queue text extract is redacted', async () => {
    const { computeExtract } = await import('../../app/services/requests/extract');
    const { createHash } = await import('node:crypto');
    const raw = Buffer.from('build ok\ntoken \x1b[1mghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf\x1b[0m\npostgres://app:s3cr3t-Pa55@db:5432/x\n');
    const path = join(base, 'raw.bin');
    writeFileSync(path, raw);
    const extract = await computeExtract({ path, sha256: createHash('sha256').update(raw).digest('hex'), size: raw.length, kind: 'text', range: null, expect: null, search: 'ghp_' });
    if (extract.kind !== 'text') throw new Error('not a text extract');
    expect(extract.text).toBe(`build ok\ntoken ${markerText('github-token')}\npostgres://app:${markerText('database-url-password')}@db:5432/x\n`);
    expect(extract.search?.total).toBe(0);
  });

  it('MCP screen: hidden text a finding shows is redacted', async () => {
    const mcp = await startMcp(join(base, 'screen-vault'));
    try {
      const c = await mcp.call('capture', { argv: ['printf', 'token ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf\\r\\033[2Kall good\\n'] });
      const record = (c.structuredContent as { record: string }).record;
      const r = await mcp.call('screen', { record });
      expect(r.isError).toBeFalsy();
      const findings = (r.structuredContent as { findings: { text: string }[] }).findings;
      expect(findings.some((f) => f.text.includes(markerText('github-token')))).toBe(true);
      expect(JSON.stringify(r)).not.toContain('oSn9qpK2rz');
    } finally {
      await mcp.close();
    }
  });
});
