import { fixturesIn } from '../helpers/fixtures';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapUnavailable } from '../helpers/sandbox';
import { everything, FORBIDDEN, textOf } from '../helpers/mcp';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'app', 'bin', 'airlock.js');

const built = existsSync(join(ROOT, 'dist', 'airlock.mjs'));
const noBuild = built ? null : 'dist/airlock.mjs is missing; run `npm run build`';
const noBwrap = await bwrapUnavailable();
if (noBuild) console.warn(`MCP stdio tests skipped: ${noBuild}`);
else if (noBwrap) console.warn(`MCP stdio sandbox tests skipped (the rest run with --sandbox auto --allow-unsandboxed): ${noBwrap}`);

const base = mkdtempSync(join(tmpdir(), 'airlock-mcp-stdio-'));
/** The hostile fixture, in the working directory the sandbox shows (not this checkout). */
const HOSTILE = join(fixturesIn(base, 'mcp'), 'hostile.mjs');
afterAll(() => rmSync(base, { recursive: true, force: true }));

const DEFAULT_EXTRA = noBwrap ? ['--sandbox', 'auto', '--allow-unsandboxed'] : [];

/**
 * The built CLI as an MCP client starts it; `extra` are more arguments after `mcp --vault DIR`.
 * With `pipeStdout` the server's stdout is a pipe(2) (as Python clients make it) rather than the
 * socket Node makes: a socket cannot be opened through /proc/PID/fd, a pipe can.
 */
async function connect(vault: string, extra: string[] = DEFAULT_EXTRA, pipeStdout = false): Promise<{ client: Client; notifications: unknown[]; call(name: string, args: Record<string, unknown>): Promise<CallToolResult> }> {
  const argv = [process.execPath, BIN, 'mcp', '--vault', vault, ...extra];
  const transport = new StdioClientTransport({
    command: pipeStdout ? 'sh' : argv[0],
    args: pipeStdout ? ['-c', '"$@" | cat', 'sh', ...argv] : argv.slice(1),
    cwd: base,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? base },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'airlock-stdio-test', version: '1.0.0' });
  const notifications: unknown[] = [];
  client.fallbackNotificationHandler = async (n) => void notifications.push(n);
  await client.connect(transport);
  return { client, notifications, call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult };
}

describe.skipIf(noBuild !== null)(`airlock mcp over stdio (built CLI)${noBuild ? ` (skipped: ${noBuild})` : ''}`, () => {
  it('runs a hostile command, pages its long output, and finds it again', async () => {
    const { client, call } = await connect(join(base, 'v1'));
    try {
      const r = await call('capture', { argv: ['sh', '-c', `"${process.execPath}" "${HOSTILE}"; sleep 0.2; seq 1 3000`], inline_text: 2048 });
      expect(r.isError).toBeFalsy();
      const env = r.structuredContent as { record: string; stdout: string; exit_code: number; sandbox: string; inline: { stdout: unknown } };
      expect(env.stdout.startsWith('plain red text\nclipboard\nlink label\n')).toBe(true);
      expect(env.exit_code).toBe(0);
      expect(env.sandbox.split(',')[0]).toBe(noBwrap ? 'none' : 'bwrap');
      expect(env.inline.stdout).not.toBeNull();
      expect(textOf(r)).toMatch(/^airlock capture \S+ \(provenance, written by Airlock\)/);
      expect(everything(r)).not.toMatch(FORBIDDEN);
      expect(everything(r)).not.toContain('SECRET-OSC52-PAYLOAD');

      let start = 1;
      const seen: string[] = [];
      for (let page = 0; page < 20; page++) {
        const p = (await call('read_text', { record: env.record, start_line: start, max_lines: 1000 })).structuredContent as { text: string; end_line: number; more_after: boolean };
        seen.push(p.text);
        if (!p.more_after) break;
        start = p.end_line + 1;
      }
      const all = seen.join('');
      expect(all.split('\n').slice(-3)).toEqual(['2999', '3000', '']);
      expect(all).toContain('\nbidi evil iso\n');

      const list = (await call('list_records', { command_contains: 'seq 1 3000' })).structuredContent as { records: { record: string; lines: { stdout: number } }[] };
      expect(list.records.map((x) => x.record)).toEqual([env.record]);
      expect(list.records[0].lines.stdout).toBe(3010);
    } finally {
      await client.close();
    }
  });

  it('control: without the sandbox a command writes into the protocol stream and reads the vault', async () => {
    const vault = join(base, 'v-none');
    const { client, notifications, call } = await connect(vault, ['--sandbox', 'none', '--allow-unsandboxed'], true);
    try {
      await call('capture', { argv: ['sh', '-c', 'printf RAW-MARKER-41'] });
      const forged = '{"jsonrpc":"2.0","method":"notifications/forged","params":{"x":"FORGED-9e"}}';
      const r = await call('capture', { argv: ['sh', '-c', `printf '%s\\n' '${forged}' > /proc/$PPID/fd/1; echo rc=$?; cat "${vault}"/raw/sha256/*/*; echo`] });
      await sleep(200);
      // The forged message arrived at the client as if the server had sent it.
      expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'notifications/forged', params: { x: 'FORGED-9e' } }]);
      expect((r.structuredContent as { stdout: string }).stdout).toBe('rc=0\nRAW-MARKER-41\n');
    } finally {
      await client.close();
    }
  });

  it.skipIf(noBwrap !== null)(`under bwrap both escapes fail${noBwrap ? ` (skipped: ${noBwrap})` : ''}`, async () => {
    const vault = join(base, 'v-bwrap');
    const { client, notifications, call } = await connect(vault, DEFAULT_EXTRA, true);
    try {
      await call('capture', { argv: ['sh', '-c', 'printf RAW-MARKER-41'] });
      const forged = '{"jsonrpc":"2.0","method":"notifications/forged","params":{"x":"FORGED-9e"}}';
      const r = await call('capture', { argv: ['sh', '-c', `printf '%s\\n' '${forged}' > /proc/$PPID/fd/1; echo rc=$?; cat "${vault}"/raw/sha256/*/*; echo cat=$?; ls -A "${vault}" | wc -l`] });
      await sleep(200);
      expect(notifications).toEqual([]);
      const env = r.structuredContent as { stdout: string; stderr: string; sandbox: string };
      expect(env.sandbox.split(',')[0]).toBe('bwrap');
      expect(env.stdout).toMatch(/^rc=[1-9]\d*\ncat=1\n0\n$/);
      expect(env.stdout + env.stderr).not.toContain('RAW-MARKER-41');
      // The protocol stream is intact: the server still answers.
      expect((await call('list_records', {})).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('stops a command that never ends when the client goes away, and stores it', async () => {
    const vault = join(base, 'v-close');
    const { client } = await connect(vault);
    const pending = client.callTool({ name: 'capture', arguments: { argv: ['sleep', '613.25'] } }).catch(() => undefined);
    await sleep(700);
    await client.close();
    await pending;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (sleepers() > 0 || readdirSync(join(vault, 'records')).length === 0)) await sleep(100);
    expect(sleepers()).toBe(0);
    const [file] = readdirSync(join(vault, 'records'));
    const record = JSON.parse(readFileSync(join(vault, 'records', file), 'utf8')) as { metadata: { termination: { reason: string } } };
    expect(record.metadata.termination.reason).toBe('interrupted');
  });

  it('refuses to run unsandboxed without the explicit override', () => {
    const r = spawnSync(process.execPath, [BIN, 'mcp', '--vault', join(base, 'v-refuse'), '--sandbox', 'none'], { encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe("airlock mcp: --sandbox none lets commands reach the vault and the server's own streams; add --allow-unsandboxed to accept that (see 'airlock mcp --help')");
  });

  it('refuses to start where bwrap is missing, in one line', () => {
    const r = spawnSync(process.execPath, [BIN, 'mcp', '--vault', join(base, 'v-nobwrap')], { encoding: 'utf8', input: '', env: { PATH: '/nonexistent', HOME: base } });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('airlock mcp: --sandbox bwrap: bwrap (bubblewrap) is not installed or not on PATH (nothing was run; --sandbox auto runs without bwrap, --network none without a network, and each says so)\n');
  });
});

/** Processes still running `sleep 613.25` (the command the closing test starts). */
function sleepers(): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes('613.25')) n++;
    } catch {
      // gone
    }
  }
  return n;
}
