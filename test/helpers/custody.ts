// Black-box helpers for the custody findings (#36): they drive a built `airlock` — this checkout's,
// or the one AIRLOCK_FINDINGS_BIN names (`/work/base/dist/airlock.mjs` reproduces each finding on
// the build before) — as a separate process, optionally as another user, the way an attacker or a
// reviewer would.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The built CLI under test (dist/airlock.mjs) and the checkout it belongs to. */
export const BIN = process.env.AIRLOCK_FINDINGS_BIN ?? resolve(__dirname, '../../dist/airlock.mjs');
export const BIN_ROOT = dirname(dirname(BIN));
export const BUILT = existsSync(BIN);

/** Who runs a command: root (the test process) or an unprivileged user with its uid and gid. */
export interface RunAs {
  readonly user: string;
  readonly uid: number;
  readonly gid: number;
}

/** What one `airlock` run returned. */
export interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Runs `airlock ARGS` to completion. */
export function airlock(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; as?: RunAs; input?: string; timeout?: number }): Ran {
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: options.timeout ?? 60_000,
    maxBuffer: 256 << 20,
    ...(options.as ? { uid: options.as.uid, gid: options.as.gid } : {}),
  });
  return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

/** An `airlock mcp` server process and an SDK client on its stdio. */
export interface McpProcess {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts `airlock mcp EXTRA…` as a process (as `as`, when given) and connects a client. */
export async function mcpProcess(extra: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; as?: RunAs }): Promise<McpProcess> {
  const transport = new StdioClientTransport({
    command: options.as ? 'setpriv' : process.execPath,
    args: options.as ? [`--reuid=${options.as.uid}`, `--regid=${options.as.gid}`, '--clear-groups', process.execPath, BIN, 'mcp', ...extra] : [BIN, 'mcp', ...extra],
    cwd: options.cwd,
    env: options.env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'custody-findings', version: '1.0.0' });
  await client.connect(transport);
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult,
    close: () => client.close(),
  };
}

/** The structured content of a tool result (throws with its text when the call failed). */
export function structured<T = Record<string, unknown>>(r: CallToolResult): T {
  if (r.isError) throw new Error(`tool error: ${r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')}`);
  return r.structuredContent as T;
}

/**
 * An unprivileged user for the sandbox findings, created with useradd when this runs as root;
 * null (with the reason in `skip`) where that is not possible. Unprivileged bubblewrap needs user
 * namespaces, which the probe in each test checks.
 */
export function unprivilegedUser(): { as: RunAs | null; skip: string | null } {
  if (process.getuid?.() !== 0) return { as: null, skip: 'not root: cannot create a second user to run as' };
  const name = 'airlock-custody';
  let id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  if (id.status !== 0) {
    const add = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
    if (add.status !== 0) return { as: null, skip: `useradd failed: ${(add.stderr || add.error?.message || '').trim()}` };
    id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  }
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  const as = { user: name, uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
  // The built CLI must be readable to it (a checkout under a private directory is not).
  const probe = spawnSync(process.execPath, [BIN, '--version'], { uid: as.uid, gid: as.gid, encoding: 'utf8' });
  if (probe.status !== 0) return { as: null, skip: `${name} cannot run ${BIN}: ${(probe.stderr || probe.error?.message || '').trim().split('\n')[0]}` };
  const ns = spawnSync('bwrap', ['--unshare-user', '--unshare-net', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--', '/usr/bin/true'], { uid: as.uid, gid: as.gid, encoding: 'utf8' });
  if (ns.status !== 0) return { as: null, skip: `unprivileged user namespaces do not work here: ${(ns.stderr || '').trim().split('\n')[0]}` };
  return { as, skip: null };
}

/** Makes `dir` (and what is in it) belong to `as`, so the user's vault and working directory are its own. */
export function giveTo(dir: string, as: RunAs | null | undefined): void {
  if (!as) return;
  const walk = (p: string): void => {
    chownSync(p, as.uid, as.gid);
    try {
      for (const e of readdirSync(p)) walk(join(p, e));
    } catch {
      // a file
    }
  };
  walk(dir);
}

/** A directory holding `airlock` (a copy of the built CLI and a launcher), to put on a sandboxed command's PATH. */
export function airlockOnPath(dir: string): string {
  const bin = join(dir, 'airlock-bin');
  mkdirSync(bin, { recursive: true });
  cpSync(dirname(BIN), join(bin, 'dist'), { recursive: true, filter: (p) => !p.endsWith('.map') });
  writeFileSync(join(bin, 'airlock'), `#!/bin/sh\nexec node "$(dirname "$0")/dist/airlock.mjs" "$@"\n`);
  chmodSync(join(bin, 'airlock'), 0o755);
  chmodSync(bin, 0o755);
  return bin;
}

/**
 * Approves request `id` at a terminal as a person would: a pseudo-terminal (python's pty) runs
 * `airlock request approve` and types the 8 digits the prompt asks for. Returns what the terminal showed.
 */
export function approveAtTerminal(id: string, digits: string, options: { cwd: string; env: NodeJS.ProcessEnv; vault: string }): Ran {
  const script = [
    'import os, pty, sys, select',
    'pid, fd = pty.fork()',
    'if pid == 0:',
    `    os.execv(sys.executable, [sys.executable, '-c', 'import os; os.execvp("node", ["node", ${JSON.stringify(BIN)}, "request", "approve", ${JSON.stringify(id)}, "--vault", ${JSON.stringify(options.vault)}])'])`,
    'out = b""',
    'sent = False',
    'while True:',
    '    r, _, _ = select.select([fd], [], [], 20)',
    '    if not r: break',
    '    try: chunk = os.read(fd, 4096)',
    '    except OSError: break',
    '    if not chunk: break',
    '    out += chunk',
    `    if not sent and b"to approve" in out: os.write(fd, b${JSON.stringify(`${digits}\n`)}); sent = True`,
    '_, status = os.waitpid(pid, 0)',
    'sys.stdout.write(out.decode("utf-8", "replace"))',
    'sys.exit(os.waitstatus_to_exitcode(status))',
  ].join('\n');
  const r = spawnSync('/usr/bin/python3', ['-c', script], { cwd: options.cwd, env: options.env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

/** Starts a process and resolves once it printed `ready` on stdout (servers the tests talk to). */
export async function startHelper(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ stop(): void; out: () => string }> {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  try {
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`helper did not get ready: ${err.slice(-300)}`)), 20_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        if (/ready.*\n/.test(out)) {
          clearTimeout(timer);
          done();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`helper exited ${code}: ${err.slice(-300)}`));
      });
    });
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return { stop: () => void child.kill('SIGKILL'), out: () => out };
}
