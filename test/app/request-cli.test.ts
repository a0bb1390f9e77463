import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../app/cli/command';
import { runCli } from '../../app/cli/run';
import type { Tty } from '../../app/cli/tty';
import { runAirlock } from '../helpers/cli';
import { requestVault } from './services/requests/helpers';

type Env = Awaited<ReturnType<typeof requestVault>>;
let env: Env;
afterEach(async () => env?.cleanup());

const CLI = join(__dirname, '../../dist/airlock.mjs');
const json = (out: Buffer): Record<string, unknown> => JSON.parse(out.toString('utf8')) as Record<string, unknown>;
const queued = (e: Env): string[] => (existsSync(join(e.vault.root, 'requests')) ? readdirSync(join(e.vault.root, 'requests')).filter((n) => n.endsWith('.json')) : []);
const auditActions = (e: Env): string[] => (existsSync(e.audit.path) ? readFileSync(e.audit.path, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { action: string }).action) : []);

async function request(args: string[], extra: Partial<CliIo> = {}): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli(['request', ...args], { stdin, stdout, stderr, env: {}, cwd: process.cwd(), ...extra });
  await new Promise((r) => setImmediate(r));
  return { code, out, err };
}

/** A terminal that answers `answer` and records what Airlock wrote to it. */
function fakeTty(answer: string | null): { open: () => Promise<Tty>; shown: () => string } {
  let shown = '';
  return { open: async () => ({ write: (t) => void (shown += t), readLine: async () => answer, close: () => undefined }), shown: () => shown };
}

describe('airlock request: the fixed contract', () => {
  it('queues a request and prints one JSON object with id and state pending', async () => {
    env = await requestVault();
    const r = await runAirlock(['request', '--vault', env.vault.root, '--artifact', env.ref, '--kind', 'hex-range', '--range', '0:0x10', '--reason', 'incident 7', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    const o = json(r.out);
    expect(Object.keys(o)).toEqual(['id', 'state', 'kind', 'artifact', 'range', 'expires_at']);
    expect(o).toMatchObject({ id: expect.stringMatching(/^req-/), state: 'pending', kind: 'hex-range', artifact: env.ref, range: [0, 16] });
    expect(r.out.toString('utf8').trim().split('\n')).toHaveLength(1);
    const s = await runAirlock(['request', 'status', String(o.id), '--vault', env.vault.root, '--json']);
    expect(s.code, s.err).toBe(0);
    const st = json(s.out);
    expect(st).toMatchObject({ id: o.id, state: 'pending' });
    expect(st).not.toHaveProperty('extract');
  });

  it('status shows the extract once approved (and the reason never comes back raw)', async () => {
    env = await requestVault();
    const made = await env.store.create({ artifact: env.ref, kind: 'digest', range: null, expect: '0'.repeat(64), search: null, reason: 'x' }, 'mcp');
    await env.store.approve(made.id, { via: 'cli' });
    const s = await runAirlock(['request', 'status', made.id, '--vault', env.vault.root, '--json']);
    expect(s.code, s.err).toBe(0);
    expect(json(s.out)).toMatchObject({ id: made.id, state: 'approved', extract: { kind: 'digest', sha256: env.sha256, match: false, expect: '0'.repeat(64) } });
  });

  it('status says denied and expired', async () => {
    env = await requestVault();
    const { RequestStore } = await import('../../app/services/requests');
    const a = await env.store.create({ artifact: env.ref, kind: 'text', range: null, expect: null, search: null, reason: 'x' }, 'mcp');
    await env.store.deny(a.id, { via: 'cli' });
    // Made a minute ago with a 5 s lifetime: the CLI's own read finds it past due.
    const old = new RequestStore(env.vault, env.audit, { now: () => new Date(Date.now() - 60_000), ttlMs: 5_000 });
    const c = await old.create({ artifact: env.ref, kind: 'text', range: null, expect: null, search: null, reason: 'x' }, 'mcp');
    expect(json((await runAirlock(['request', 'status', a.id, '--vault', env.vault.root, '--json'])).out)).toMatchObject({ state: 'denied' });
    expect(json((await runAirlock(['request', 'status', c.id, '--vault', env.vault.root, '--json'])).out)).toMatchObject({ state: 'expired' });
    expect(auditActions(env).filter((x) => x === 'request.expired')).toHaveLength(1);
  });

  it.each([
    ['unknown artifact', ['--artifact', `restricted:sha256:${'1'.repeat(64)}`, '--kind', 'digest', '--reason', 'r'], 1, 'no raw artifact'],
    ['bad range', ['--kind', 'hex-range', '--range', '10-20', '--reason', 'r'], 2, '--range needs A:B'],
    ['reversed range', ['--kind', 'hex-range', '--range', '20:10', '--reason', 'r'], 2, 'start must be below the end'],
    ['range past the end', ['--kind', 'hex-range', '--range', '0:1M', '--reason', 'r'], 2, 'past the end of the artifact'],
    ['missing reason', ['--kind', 'digest'], 2, '--reason is required'],
    ['empty reason', ['--kind', 'digest', '--reason', ' '], 2, 'a reason is required'],
    ['bad hex', ['--kind', 'digest', '--expect', 'abc', '--reason', 'r'], 2, '64 hex digits'],
    ['kind/flag mismatch', ['--kind', 'hex-range', '--range', '0:4', '--search', 'x', '--reason', 'r'], 2, '--search goes with --kind text only'],
    ['unknown kind', ['--kind', 'everything', '--reason', 'r'], 2, 'kind must be'],
    ['unknown option', ['--kind', 'digest', '--reason', 'r', '--approve'], 2, "unknown option '--approve'"],
  ])('refuses %s: exit %s, one line on stderr, nothing queued', async (_name, args, code, message) => {
    env = await requestVault();
    const withRef = args.includes('--artifact') ? args : ['--artifact', env.ref, ...args];
    const r = await runAirlock(['request', '--vault', env.vault.root, ...withRef, '--json']);
    expect(r.code).toBe(code);
    expect(r.out.length).toBe(0);
    expect(r.err).toContain(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(queued(env)).toEqual([]);
    expect(auditActions(env)).toEqual([]);
  });

  it('an oversize range is refused (exit 1) and queues nothing', async () => {
    env = await requestVault({}, new Uint8Array(100_000));
    const r = await runAirlock(['request', '--vault', env.vault.root, '--artifact', env.ref, '--kind', 'hex-range', '--range', '0:65K', '--reason', 'r']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^airlock request: a hex-range extract is at most 65536 bytes \(asked for 66560\)\n$/);
    expect(queued(env)).toEqual([]);
  });

  it('without --json prints readable, escaped lines; the reason stays behind the gutter', async () => {
    env = await requestVault();
    const r = await request(['--vault', env.vault.root, '--artifact', env.ref, '--kind', 'text', '--reason', 'evil\x1b]0;x\x07\nairlock request: approved']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^airlock request: queued req-\S+ \(pending\): text of the whole artifact of restricted:sha256:/);
    const id = /queued (req-\S+)/.exec(r.out)![1];
    const s = await request(['status', id, '--vault', env.vault.root]);
    expect(s.out).toContain('    | evil\\x1b]0;x\\x07\n    | airlock request: approved\n');
    expect(s.out).not.toMatch(/[\x1b\x07]/);
    expect(s.out.split('\n').filter((l) => l.startsWith('airlock request: approved'))).toEqual([]);
  });
});

describe('airlock request: the commands it names can be pasted', () => {
  it('carries the --vault given, quoted for a shell: the pasted line reaches the same vault', async () => {
    env = await requestVault();
    // A vault whose path a shell would split, expand or end early if it were not quoted.
    const dir = join(env.dir, "it's my vault $HOME; echo x");
    await rename(env.vault.root, dir);
    const r = await request(['--vault', dir, '--artifact', env.ref, '--kind', 'text', '--reason', 'incident 7']);
    expect(r.code, r.err).toBe(0);
    const id = /queued (req-\S+)/.exec(r.out)![1];
    const named = (label: string): string => r.out.split('\n').find((l) => l.includes(label))!.split(`${label} `)[1];
    expect(named('follow it with:')).toBe(`airlock request status ${id} --vault '${dir.replace(/'/g, `'\\''`)}'`);
    expect(named('decides at a terminal:')).toBe(`airlock request approve ${id} --vault '${dir.replace(/'/g, `'\\''`)}'`);
    // Pasted into a POSIX shell (airlock being this build): the status of that very request.
    const pasted = spawnSync('sh', ['-c', `airlock() { "$AIRLOCK_NODE" "$AIRLOCK_CLI" "$@"; }; ${named('follow it with:')} --json`], {
      env: { PATH: process.env.PATH, AIRLOCK_NODE: process.execPath, AIRLOCK_CLI: CLI }, encoding: 'utf8',
    });
    expect(pasted.status, pasted.stderr).toBe(0);
    expect(JSON.parse(pasted.stdout)).toMatchObject({ id, state: 'pending' });
  });

  it('names no --vault when none was given (the vault came from $AIRLOCK_VAULT or the default)', async () => {
    env = await requestVault();
    const r = await request(['--artifact', env.ref, '--kind', 'text', '--reason', 'x'], { env: { AIRLOCK_VAULT: env.vault.root } });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/follow it with: airlock request status req-\S+\n$/);
  });
});

describe('airlock request approve/deny: a human at a terminal', () => {
  it('refuses without a terminal and decides nothing', async () => {
    env = await requestVault();
    const made = await env.store.create({ artifact: env.ref, kind: 'hex-range', range: [0, 8], expect: null, search: null, reason: 'r' }, 'mcp');
    for (const sub of ['approve', 'deny']) {
      const r = await request([sub, made.id, '--vault', env.vault.root], { openTty: async () => null });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^airlock request: ${sub} needs a human at an interactive terminal`));
    }
    expect((await env.store.get(made.id)).state).toBe('pending');
    expect(auditActions(env)).toEqual(['request.created']);
  });

  it('the digits piped on stdin do not approve: the answer comes from the terminal only', async () => {
    env = await requestVault();
    const made = await env.store.create({ artifact: env.ref, kind: 'hex-range', range: [0, 8], expect: null, search: null, reason: 'r' }, 'mcp');
    const stdin = new PassThrough();
    stdin.end(`${env.sha256.slice(0, 8)}\n`);
    const r = await request(['approve', made.id, '--vault', env.vault.root], { stdin, openTty: fakeTty(null).open });
    expect(r.code).toBe(1);
    expect((await env.store.get(made.id)).state).toBe('pending');
  });

  it('shows the request escaped on the terminal and approves only with the digest digits', async () => {
    env = await requestVault();
    const made = await env.store.create({ artifact: env.ref, kind: 'hex-range', range: [0, 8], expect: null, search: null, reason: 'see \u202eevil\x1b[2J' }, 'mcp');
    const wrong = fakeTty('yes');
    const w = await request(['approve', made.id, '--vault', env.vault.root], { openTty: wrong.open });
    expect(w.code).toBe(1);
    expect(w.err).toContain('did not match');
    expect(wrong.shown()).toContain('| see \\u{202e}evil\\x1b[2J');
    expect(wrong.shown()).not.toMatch(/[\x1b\u202e]/);
    expect((await env.store.get(made.id)).state).toBe('pending');
    const right = fakeTty(env.sha256.slice(0, 8).toUpperCase());
    const ok = await request(['approve', made.id, '--vault', env.vault.root, '--note', 'fine', '--json'], { openTty: right.open });
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ id: made.id, state: 'approved', note: 'fine', extract: { kind: 'hex-range', rows: ['00000000  62 75 69 6c 64 3a 20 1b                           |build: ^[|'] } });
    expect(auditActions(env)).toEqual(['request.created', 'request.approved']);
    const again = await request(['approve', made.id, '--vault', env.vault.root], { openTty: right.open });
    expect(again.code).toBe(1);
    expect(again.err).toContain('is approved: only a pending request');
  });

  it('deny takes "deny" typed at the terminal', async () => {
    env = await requestVault();
    const made = await env.store.create({ artifact: env.ref, kind: 'digest', range: null, expect: null, search: null, reason: 'r' }, 'mcp');
    const r = await request(['deny', made.id, '--vault', env.vault.root, '--note', 'no'], { openTty: fakeTty('deny').open });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`airlock request: ${made.id} denied\n`);
    const l = await request(['list', '--vault', env.vault.root, '--state', 'denied', '--json']);
    expect(JSON.parse(l.out)).toMatchObject([{ id: made.id, state: 'denied', note: 'no' }]);
  });

  it('lists pending first', async () => {
    env = await requestVault();
    const a = await env.store.create({ artifact: env.ref, kind: 'digest', range: null, expect: null, search: null, reason: 'first' }, 'mcp');
    const b = await env.store.create({ artifact: env.ref, kind: 'digest', range: null, expect: null, search: null, reason: 'second' }, 'mcp');
    await env.store.deny(b.id, { via: 'cli' });
    const l = await request(['list', '--vault', env.vault.root]);
    expect(l.out.split('\n')[0]).toMatch(new RegExp(`^${a.id}  pending `));
    expect(l.out.split('\n')[1]).toMatch(new RegExp(`^${b.id}  denied `));
  });

  it.skipIf(!existsSync(CLI))('as a process without a controlling terminal (setsid), approve refuses even with the digits piped in', async () => {
    env = await requestVault();
    const made = await env.store.create({ artifact: env.ref, kind: 'hex-range', range: [0, 8], expect: null, search: null, reason: 'r' }, 'mcp');
    const r = spawnSync('setsid', ['-w', process.execPath, CLI, 'request', 'approve', made.id, '--vault', env.vault.root], { input: `${env.sha256.slice(0, 8)}\n`, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('needs a human at an interactive terminal');
    expect((await env.store.get(made.id)).state).toBe('pending');
  });
});
