// Raw access to a running capture's stream (requestRunningRawAccess, readRunningRaw): the grant
// exists only through main's prompt (the last digits of the record id typed by the human), reads
// stay below what is stored and logged and grow with it, and everything else is refused — another
// window, the other kind of grant on either method, path tricks in ids and in the temp file, a
// replaced temp file, revocation, expiry, a closed window, an interrupted capture, and forged
// arguments of every type. A real capture sealed under a live grant: the grant goes on over the
// sealed artifact (audited with its digest), the same bytes.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, link, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnvironment, planSandbox, protectedPaths } from '../../../../app/capture';
import { captureToVault } from '../../../../app/capture/stored-capture';
import { newRecordId } from '../../../../app/vault';
import { hostTag } from '../../../../app/vault/raw-writer';
import type { RunningWriter } from '../../../../app/vault/running';
import { MAX_RAW_READ } from '../../../../shared/bridge/limits';
import type { GrantInfo, PromptView, RawAccessOutcome, RunningRawPage } from '../../../../shared/bridge/types';
import { approve as approveArtifact, makeEnv, promptWindow, type Env } from '../bridge/env';

let env: Env;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Main reads a capture's log at most every 100 ms (what the capture's own writes lag by): wait that out. */
const logRead = () => sleep(120);

/** A running capture written as a capture writes it: its stdout's raw temp file, named in its log, and chunk rows. */
interface Fake {
  id: string;
  temp: string;
  writer: RunningWriter;
  size: number;
  /** Appends raw bytes to the temp file and (unless `log` is false) a chunk row naming them. */
  grow(bytes: Buffer, log?: boolean): Promise<void>;
}

async function fakeRunning(first: Buffer, fields: Record<string, unknown> = {}, logName?: string, pid = process.pid): Promise<Fake> {
  // Named as a capture's own process names its temp files (raw-writer's rawTempName).
  const name = `raw-${pid}-${hostTag()}-${randomBytes(8).toString('hex')}.part`;
  const vault = env.services.vault;
  const id = newRecordId(new Date(Date.now() - Math.floor(Math.random() * 1e9)));
  const temp = join(vault.layout.tmpDir, name);
  await mkdir(vault.layout.tmpDir, { recursive: true, mode: 0o700 });
  await writeFile(temp, '', { mode: 0o600 });
  const writer = await vault.startRunning(id, ['stdout', 'stderr'], { command: 'make test', cwd: env.dir, redaction: { mode: 'on' }, ...fields });
  writer.line(['raw', { stdout: logName ?? name, stderr: null }]);
  let seq = 0;
  const f: Fake = {
    id, temp, writer, size: 0,
    async grow(bytes, log = true) {
      await appendFile(temp, bytes);
      if (log) {
        writer.line(['c', seq, seq, 'stdout', f.size, bytes.length, 0, 0, seq * 10, 0, 0, 0]);
        seq++;
        f.size += bytes.length;
      }
      await writer.flush();
    },
  };
  await f.grow(first);
  return f;
}

const viewer = (id = 1) => env.viewer(id);

/** Asks for raw access to `stream` of `id` from `window` and answers the prompt with `confirm` (default: the right digits). */
async function askRunning(id: string, window = 1, options: { stream?: string; confirm?: string; decision?: 'approve' | 'deny' } = {}): Promise<{ outcome: RawAccessOutcome; view: PromptView }> {
  const asked = env.ok<RawAccessOutcome>(viewer(window), 'requestRunningRawAccess', id, options.stream ?? 'stdout', { reason: 'watch the build' });
  const pw = await promptWindow(env);
  const view = await env.ok<PromptView>(env.prompt(pw), 'getPrompt');
  await env.ok(env.prompt(pw), 'answerPrompt', { decision: options.decision ?? 'approve', reason: 'incident 7', confirm: options.confirm ?? id.slice(-8) });
  return { outcome: await asked, view };
}

async function grantOn(id: string, window = 1): Promise<GrantInfo> {
  const { outcome } = await askRunning(id, window);
  if (outcome.state !== 'granted') throw new Error(`not granted: ${outcome.why}`);
  return outcome.grant;
}

const read = (grant: string, offset: number, length: number, window = 1) => env.call<RunningRawPage>(viewer(window), 'readRunningRaw', grant, offset, length);
const readOk = async (grant: string, offset: number, length: number, window = 1): Promise<RunningRawPage> => {
  const r = await read(grant, offset, length, window);
  if (!r.ok) throw new Error(`[${r.code}] ${r.message}`);
  return r.value;
};

async function audit(): Promise<Record<string, unknown>[]> {
  return (await env.services.audit.list()).flatMap((l) => ('entry' in l ? [l.entry as unknown as Record<string, unknown>] : []));
}

beforeAll(async () => {
  env = await makeEnv();
}, 60_000);
afterAll(async () => {
  await env.close();
});

describe('a grant on a running capture\'s stream', () => {
  it('exists only through the prompt: it shows what is approved and wants the last digits of the record id', async () => {
    const f = await fakeRunning(Buffer.from('hello \x1b[31mred\x1b[0m\n'));
    // The wrong digits (the first ones, a digest's, nothing) are refused in the prompt; a denial grants nothing.
    const asked = env.ok<RawAccessOutcome>(viewer(), 'requestRunningRawAccess', f.id, 'stdout', {});
    const pw = await promptWindow(env);
    const view = await env.ok<PromptView>(env.prompt(pw), 'getPrompt');
    expect(view.artifact).toBeNull();
    expect(view.running).toEqual({ recordId: f.id, title: 'make test', cwd: env.dir, startedAt: expect.any(String), stream: 'stdout', bytesSoFar: f.size });
    for (const confirm of [f.id.slice(0, 8), '', f.id.slice(-9, -1), env.markerSha.slice(0, 8)]) {
      expect(await env.call(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'r', confirm })).toMatchObject({ ok: false, code: 'bad-request' });
    }
    // The viewer cannot answer its own prompt.
    expect(await env.call(viewer(), 'answerPrompt', { decision: 'approve', reason: 'r', confirm: f.id.slice(-8) })).toMatchObject({ ok: false });
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'deny', reason: 'no', confirm: '' });
    expect((await asked).state).toBe('denied');
    expect(await env.ok<GrantInfo[]>(viewer(), 'listGrants')).toEqual([]);

    // A second window (no back-off there) approved with the right digits.
    const grant = await grantOn(f.id, 2);
    expect(grant).toMatchObject({ ref: null, running: { recordId: f.id, stream: 'stdout' }, windowId: 2, range: null });
    const entries = await audit();
    const granted = entries.find((e) => e.action === 'raw.granted' && e.grant === grant.id)!;
    expect(granted).toMatchObject({ record: f.id, stream: 'stdout', running: true, size: f.size, window: 2 });
    expect(granted.sha256).toBeUndefined();
    expect(entries.some((e) => e.action === 'raw.requested' && e.record === f.id && e.running === true)).toBe(true);
    expect(entries.some((e) => e.action === 'raw.denied' && e.record === f.id && e.running === true)).toBe(true);
    await env.ok(viewer(2), 'revokeGrant', grant.id);
  }, 30_000);

  it('reads only what is stored and named by the chunk log, and grows with it; bytes below the size do not change', async () => {
    const first = Buffer.from('step 1 \x1b]52;c;AAAA\x07\n');
    const f = await fakeRunning(first);
    const grant = await grantOn(f.id);
    const p1 = await readOk(grant.id, 0, MAX_RAW_READ);
    expect(p1).toMatchObject({ offset: 0, size: first.length, sealed: null });
    expect(Buffer.from(p1.bytes)).toEqual(first);
    // Bytes on disk the log does not name yet are not served.
    const more = Buffer.from('step 2 \x1b[2J\n');
    await f.grow(more, false);
    await logRead();
    expect((await readOk(grant.id, 0, MAX_RAW_READ)).size).toBe(first.length);
    // Named now: the size grows, and what was below it reads the same.
    f.writer.line(['c', 9, 9, 'stdout', first.length, more.length, 0, 0, 90, 0, 0, 0]);
    await f.writer.flush();
    await logRead();
    const p2 = await readOk(grant.id, 0, MAX_RAW_READ);
    expect(p2.size).toBe(first.length + more.length);
    expect(Buffer.from(p2.bytes)).toEqual(Buffer.concat([first, more]));
    const tail = await readOk(grant.id, first.length, 4);
    expect(Buffer.from(tail.bytes)).toEqual(more.subarray(0, 4));
    // A log that names more than the file holds: only what the file holds.
    f.writer.line(['c', 10, 10, 'stdout', first.length + more.length, 1000, 0, 0, 100, 0, 0, 0]);
    await f.writer.flush();
    await logRead();
    expect((await readOk(grant.id, 0, MAX_RAW_READ)).size).toBe(first.length + more.length);
    // At the end: nothing, no error; past it: refused.
    expect((await readOk(grant.id, p2.size, 16)).bytes.length).toBe(0);
    expect(await read(grant.id, p2.size + 1, 16)).toMatchObject({ ok: false, code: 'bad-request' });
    await env.ok(viewer(), 'revokeGrant', grant.id);
    const opened = (await audit()).find((e) => e.action === 'raw.opened' && e.grant === grant.id)!;
    expect(opened).toMatchObject({ record: f.id, stream: 'stdout', running: true, ranges: [[0, first.length + more.length]] });
  }, 30_000);

  it('is refused to another window, on the sealed-artifact methods, and a sealed-artifact grant is refused here', async () => {
    const f = await fakeRunning(Buffer.from('abc\n'));
    const grant = await grantOn(f.id);
    expect(await read(grant.id, 0, 4, 2)).toMatchObject({ ok: false, code: 'forbidden' });
    for (const [method, ...args] of [['readRaw', 0, 4], ['getSpanValues', 0, 4], ['getSecretValues', 0, 4], ['getPayloads', 0, 4], ['searchRaw', { mode: 'text', pattern: 'a' }], ['exportHexDump', {}]] as const) {
      expect(await env.call(viewer(), method, grant.id, ...args), method).toMatchObject({ ok: false, code: 'forbidden' });
    }
    const artifactGrant = await approveArtifact(env, 1);
    expect(await read(artifactGrant, 0, 4)).toMatchObject({ ok: false, code: 'forbidden' });
    // The grant names no record or stream to read: the other stream needs its own approval.
    expect(await env.call(viewer(), 'readRunningRaw', grant.id, 0, 4, 'stderr')).toMatchObject({ ok: false, code: 'bad-request' });
    const other = await fakeRunning(Buffer.from('other capture\n'));
    expect(Buffer.from((await readOk(grant.id, 0, 100)).bytes).toString()).toBe('abc\n');
    await env.ok(viewer(), 'revokeGrant', grant.id);
    await env.ok(viewer(), 'revokeGrant', artifactGrant);
    await other.writer.close();
  }, 30_000);

  it('ids with path tricks and a linked running directory open no prompt', async () => {
    const opened = env.opened.length;
    const real = await fakeRunning(Buffer.from('x\n'));
    for (const id of ['..', '../records', 'a/b', `${real.id}/..`, `${real.id}/../x`, '.', 'running', newRecordId(new Date())]) {
      const r = await env.call(viewer(), 'requestRunningRawAccess', id, 'stdout', {});
      expect(r.ok, id).toBe(false);
      if (!r.ok) expect(['bad-request', 'not-found']).toContain(r.code);
    }
    for (const stream of ['../stdout', 'stdin', 'STDOUT', '', 'stdout/x']) {
      const r = await env.call(viewer(), 'requestRunningRawAccess', real.id, stream, {});
      expect(r.ok, stream).toBe(false);
    }
    // A running/ entry that links to a directory elsewhere.
    const id = newRecordId(new Date(Date.now() - 5e9));
    const elsewhere = join(env.dir, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(elsewhere, 'meta.json'), JSON.stringify({ format: 1, id, started_at: 'x', owner: { pid: process.pid, host: hostTag(), boot: null, start: null }, streams: ['stdout'] }));
    await writeFile(join(elsewhere, 'log.jsonl'), '');
    await symlink(elsewhere, join(env.services.vault.root, 'running', id));
    expect(await env.call(viewer(), 'requestRunningRawAccess', id, 'stdout', {})).toMatchObject({ ok: false, code: 'not-found' });
    expect(env.opened.length).toBe(opened);
    await real.writer.close();
  });

  it('a temp file replaced by a link or another file, or named outside tmp/ by the log, is not read', async () => {
    const secretFile = join(env.dir, 'not-for-you.txt');
    await writeFile(secretFile, 'TOP SECRET CONTENTS\n');
    // Linked: the link is refused (O_NOFOLLOW), whatever it points at.
    const linked = await fakeRunning(Buffer.from('first bytes\n'));
    const g1 = await grantOn(linked.id);
    expect((await readOk(g1.id, 0, 100)).size).toBe(12);
    await rm(linked.temp);
    await symlink(secretFile, linked.temp);
    const r1 = await read(g1.id, 0, 100);
    expect(r1).toMatchObject({ ok: false, code: 'forbidden' });
    expect(JSON.stringify(r1)).not.toContain('SECRET');
    // Linked before anything was read (no file pinned yet): refused all the same.
    const early = await fakeRunning(Buffer.from('0123456789ab\n'));
    await rm(early.temp);
    await symlink(secretFile, early.temp);
    const g0 = await grantOn(early.id);
    const r0 = await read(g0.id, 0, 100);
    expect(r0).toMatchObject({ ok: false, code: 'forbidden' });
    expect(JSON.stringify(r0)).not.toContain('SECRET');
    await env.ok(viewer(), 'revokeGrant', g0.id);
    await early.writer.close();
    // A hard link to another file, and a FIFO (it must not hold main's thread), planted under the name: refused.
    for (const plant of [(p: string) => link(secretFile, p), (p: string) => new Promise<void>((ok, no) => execFile('mkfifo', [p], (e) => (e ? no(e) : ok())))]) {
      const f = await fakeRunning(Buffer.from('0123456789ab\n'));
      await rm(f.temp);
      await plant(f.temp);
      const g = await grantOn(f.id);
      const r = await read(g.id, 0, 100);
      expect(r).toMatchObject({ ok: false, code: 'forbidden' });
      expect(JSON.stringify(r)).not.toContain('SECRET');
      await env.ok(viewer(), 'revokeGrant', g.id);
      await f.writer.close();
    }
    // Replaced by another plain file under the same name: refused (it is not the file first read).
    const replaced = await fakeRunning(Buffer.from('original\n'));
    const g2 = await grantOn(replaced.id);
    expect((await readOk(g2.id, 0, 100)).size).toBe(9);
    await rm(replaced.temp);
    await writeFile(replaced.temp, 'REPLACED!\nmore', { mode: 0o600 });
    expect(await read(g2.id, 0, 100)).toMatchObject({ ok: false, code: 'forbidden' });
    // Shortened in place: refused.
    const shortened = await fakeRunning(Buffer.from('0123456789\n'));
    const g3 = await grantOn(shortened.id);
    await readOk(g3.id, 0, 100);
    await writeFile(shortened.temp, '01');
    expect(await read(g3.id, 0, 100)).toMatchObject({ ok: false, code: 'forbidden' });
    // A log naming a path outside tmp/ (or no raw temp name): no file is opened, nothing is served.
    const forged = await fakeRunning(Buffer.from('x\n'));
    forged.writer.line(['raw', { stdout: '../records/x.json', stderr: null }]);
    await forged.writer.flush();
    await logRead();
    const g4 = await grantOn(forged.id);
    const page = await readOk(g4.id, 0, 100);
    // The forged row is ignored: the name from before it stands.
    expect(Buffer.from(page.bytes).toString()).toBe('x\n');
    // So is a later row naming a real temp file (the capture names its files once, at its start).
    const other = await fakeRunning(Buffer.from('ANOTHER CAPTURE\n'));
    forged.writer.line(['raw', { stdout: other.temp.split('/').pop()!, stderr: null }]);
    await forged.writer.flush();
    await logRead();
    expect(Buffer.from((await readOk(g4.id, 0, 100)).bytes).toString()).toBe('x\n');
    await other.writer.close();
    // A log that names, from the start, a temp file another process wrote (its pid in the name): refused.
    const foreignName = `raw-${process.pid + 1}-${hostTag()}-${randomBytes(8).toString('hex')}.part`;
    await writeFile(join(env.services.vault.layout.tmpDir, foreignName), 'OTHER PROCESS BYTES\n', { mode: 0o600 });
    const foreign = await fakeRunning(Buffer.from('z\n'), {}, foreignName);
    const g6 = await grantOn(foreign.id);
    const r6 = await read(g6.id, 0, 100);
    expect(r6).toMatchObject({ ok: false, code: 'forbidden' });
    expect(JSON.stringify(r6)).not.toContain('OTHER');
    await env.ok(viewer(), 'revokeGrant', g6.id);
    await foreign.writer.close();
    const noName = await fakeRunning(Buffer.from('y\n'), {}, 'raw-../../etc/passwd.part');
    const g5 = await grantOn(noName.id);
    expect(await readOk(g5.id, 0, 100)).toMatchObject({ size: 0, bytes: new Uint8Array(0) });
    for (const g of [g1, g2, g3, g4, g5]) await env.ok(viewer(), 'revokeGrant', g.id);
    for (const f of [linked, replaced, shortened, forged, noName]) await f.writer.close();
  }, 60_000);

  it('ends as other grants do: revoked, window closed; and refuses forged arguments of every type', async () => {
    const f = await fakeRunning(Buffer.from('abc\n'));
    const g = await grantOn(f.id);
    await env.ok(viewer(), 'revokeGrant', g.id);
    expect(await read(g.id, 0, 4)).toMatchObject({ ok: false, code: 'no-grant' });
    const g2 = await grantOn(f.id, 2);
    await env.services.windowClosed(2);
    env.windows.set(2, 'viewer');
    expect(await read(g2.id, 0, 4, 2)).toMatchObject({ ok: false, code: 'no-grant' });
    expect((await audit()).some((e) => e.action === 'raw.revoked' && e.grant === g2.id && e.why === 'window-closed')).toBe(true);

    const g3 = await grantOn(f.id);
    const bad: unknown[][] = [
      [], [g3.id], [g3.id, 0], [g3.id, 0, 4, 0], [null, 0, 4], [1, 0, 4], [{ id: g3.id }, 0, 4], [[g3.id], 0, 4], ['g-zz', 0, 4], [`${g3.id}/..`, 0, 4],
      [g3.id, -1, 4], [g3.id, 1.5, 4], [g3.id, '0', 4], [g3.id, Number.NaN, 4], [g3.id, 2 ** 60, 4], [g3.id, null, 4],
      [g3.id, 0, 0], [g3.id, 0, -4], [g3.id, 0, 2.5], [g3.id, 0, '4'], [g3.id, 0, { length: 4 }],
    ];
    for (const args of bad) {
      const r = await env.services.dispatcher.call(viewer(), 'readRunningRaw', args);
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (!r.ok) expect(['bad-request', 'no-grant'], JSON.stringify(args)).toContain(r.code);
    }
    expect(await env.services.dispatcher.call(viewer(), 'readRunningRaw', [g3.id, 0, MAX_RAW_READ + 1])).toMatchObject({ ok: false, code: 'too-large' });
    expect(await env.services.dispatcher.call(viewer(), 'readRunningRaw', 'not a list')).toMatchObject({ ok: false, code: 'bad-request' });
    for (const args of [[f.id], [f.id, 'stdout'], [1, 'stdout', {}], [null, 'stdout', {}], [f.id, 5, {}], [f.id, 'stdout', { range: [0, 1] }], [f.id, 'stdout', 'x'], [f.id, 'stdout', null], [f.id, 'stdout', { reason: 7 }], [f.id, 'stdout', { reason: 'x'.repeat(3000) }]]) {
      const r = await env.services.dispatcher.call(viewer(), 'requestRunningRawAccess', args);
      expect(r, JSON.stringify(args)).toMatchObject({ ok: false, code: 'bad-request' });
    }
    // The prompt window cannot call it, nor an unknown window, nor a subframe.
    expect(await env.services.dispatcher.callPrompt(env.prompt(100), 'readRunningRaw', [g3.id, 0, 4])).toMatchObject({ ok: false });
    expect(await env.services.dispatcher.call({ windowId: 77, origin: 'airlock://app', mainFrame: true }, 'readRunningRaw', [g3.id, 0, 4])).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await env.services.dispatcher.call({ windowId: 1, origin: 'airlock://app', mainFrame: false }, 'readRunningRaw', [g3.id, 0, 4])).toMatchObject({ ok: false, code: 'forbidden' });
    await env.ok(viewer(), 'revokeGrant', g3.id);
    await f.writer.close();
  }, 30_000);

  it('expires as other grants do', async () => {
    const short = await makeEnv({ grantTtlMs: 1000 });
    const saved = env;
    env = short;
    try {
      const f = await fakeRunning(Buffer.from('abc\n'));
      const g = await grantOn(f.id);
      expect((await readOk(g.id, 0, 4)).size).toBe(4);
      await sleep(1100);
      expect(await read(g.id, 0, 4)).toMatchObject({ ok: false, code: 'expired' });
      expect((await audit()).some((e) => e.action === 'raw.expired' && e.grant === g.id && e.record === f.id)).toBe(true);
      await f.writer.close();
    } finally {
      env = saved;
      await short.close();
    }
  }, 30_000);

  it('ends when the capture is interrupted (its Airlock is gone): nothing reads the temp file another process will seal', async () => {
    // The owner: a child process that is then killed, as Airlock would be.
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const f = await fakeRunning(Buffer.from('building...\n'), {}, undefined, child.pid!);
    const metaPath = join(env.services.vault.root, 'running', f.id, 'meta.json');
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as { owner: { pid: number; start: string | null; boot: string | null } };
    meta.owner = { ...meta.owner, pid: child.pid!, start: null, boot: null };
    await writeFile(metaPath, JSON.stringify(meta));
    const g = await grantOn(f.id);
    expect((await readOk(g.id, 0, 100)).size).toBe(12);
    child.kill('SIGKILL');
    await exited;
    const r = await read(g.id, 0, 100);
    expect(r).toMatchObject({ ok: false, code: 'no-grant' });
    if (!r.ok) expect(r.message).toMatch(/interrupted/);
    // Ended for good, audited with what was read.
    expect(await read(g.id, 0, 100)).toMatchObject({ ok: false, code: 'no-grant' });
    expect(await env.ok<GrantInfo[]>(viewer(), 'listGrants')).not.toContainEqual(expect.objectContaining({ id: g.id }));
    const entries = await audit();
    expect(entries.find((e) => e.action === 'raw.revoked' && e.grant === g.id)).toMatchObject({ why: 'capture-interrupted', record: f.id });
    expect(entries.find((e) => e.action === 'raw.opened' && e.grant === g.id)).toMatchObject({ ranges: [[0, 12]] });
    await f.writer.close();
  }, 30_000);
});

describe('sealing under a live running grant', () => {
  it('the grant goes on over the sealed artifact of the same record and stream (audited with its digest): the same bytes', async () => {
    const vault = env.services.vault;
    const sandbox = await planSandbox('none', { protect: protectedPaths(vault.root, process.env), profile: 'strict' });
    const { env: childEnv, summary } = childEnvironment({ PATH: process.env.PATH, HOME: process.env.HOME }, []);
    let started!: (id: string) => void;
    const idP = new Promise<string>((r) => (started = r));
    const done = captureToVault({
      vault, argv: ['sh', '-c', 'for i in 1 2 3 4; do printf "step $i \\033[32mok\\033[0m\\n"; sleep 0.7; done'], cwd: env.dir, env: childEnv, envSummary: summary,
      maxBytes: 1 << 20, maxText: 1 << 20, cr: 'newline', limits: {}, timeoutMs: 60_000, sandbox, onStart: started,
    });
    const id = await idP;
    // Its first bytes reach the log and the temp file (the raw writer flushes within a second).
    let grant: GrantInfo | null = null;
    for (let i = 0; i < 100 && !grant; i++) {
      await sleep(50);
      const d = await env.services.follow.describe(id, 'stdout');
      if (d && d.bytesSoFar > 0) grant = await grantOn(id);
    }
    expect(grant).not.toBeNull();
    const sizes: number[] = [];
    let page: RunningRawPage = await readOk(grant!.id, 0, MAX_RAW_READ);
    let unavailable = 0;
    for (let i = 0; i < 200 && page.sealed === null; i++) {
      sizes.push(page.size);
      await sleep(50);
      const r = await read(grant!.id, 0, MAX_RAW_READ);
      // The moment between the temp file's publication and the record: 'ask again'.
      if (!r.ok && r.code === 'unavailable') unavailable++;
      else if (!r.ok) throw new Error(`[${r.code}] ${r.message}`);
      else page = r.value;
    }
    expect(unavailable).toBeLessThan(5);
    await done;
    // It grew while running, never shrank, and each read's bytes start the final ones.
    expect(new Set(sizes.filter((s) => s > 0)).size).toBeGreaterThan(1);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    const record = await vault.getRecord(id);
    const ref = `restricted:sha256:${record.raw.stdout.sha256}`;
    expect(page).toMatchObject({ sealed: ref, size: record.raw.stdout.size });
    const whole = await readFile(vault.rawPath(record.raw.stdout.sha256));
    expect(Buffer.from(page.bytes)).toEqual(whole);
    expect(whole.toString()).toContain('step 4');
    // Now a grant on that artifact: the viewer's methods read it, listGrants names it.
    const listed = (await env.ok<GrantInfo[]>(viewer(), 'listGrants')).find((g) => g.id === grant!.id)!;
    expect(listed).toMatchObject({ ref, running: { recordId: id, stream: 'stdout' }, expiresAt: grant!.expiresAt });
    const raw = await env.ok<{ bytes: Uint8Array }>(viewer(), 'readRaw', grant!.id, 0, 64);
    expect(Buffer.from(raw.bytes)).toEqual(whole.subarray(0, 64));
    expect(await read(grant!.id, whole.length + 1, 4)).toMatchObject({ ok: false, code: 'bad-request' });
    const continued = (await audit()).find((e) => e.action === 'raw.continued' && e.grant === grant!.id);
    expect(continued).toMatchObject({ record: id, stream: 'stdout', sha256: record.raw.stdout.sha256, size: whole.length });
    // The other stream was not approved: no grant covers it.
    expect((await env.ok<GrantInfo[]>(viewer(), 'listGrants')).filter((g) => g.running?.recordId === id).map((g) => g.running!.stream)).toEqual(['stdout']);
    await env.ok(viewer(), 'revokeGrant', grant!.id);
  }, 60_000);

  it('a follow update that sees the capture sealed continues the grant, though nothing was read', async () => {
    const f = await fakeRunning(Buffer.from('one\n'));
    const g = await grantOn(f.id);
    // Seal it as a capture does: the raw bytes under their digest, the record, the running directory removed.
    const bytes = await readFile(f.temp);
    const vault = env.services.vault;
    const { createHash } = await import('node:crypto');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { publishRaw } = await import('../../../../app/vault/raw-writer');
    await publishRaw(vault.layout, f.temp, sha256);
    f.writer.line(['end', 'sealed', null]);
    await f.writer.close();
    await vault.putRecord({ id: f.id, created_at: new Date().toISOString(), raw: { stdout: { sha256, size: bytes.length } } }, {});
    await logRead();
    const u = await env.ok<{ state: string }>(viewer(), 'followRunning', f.id, 'stdout', 0, 16);
    expect(u.state).toBe('sealed');
    expect((await env.ok<GrantInfo[]>(viewer(), 'listGrants')).find((x) => x.id === g.id)).toMatchObject({ ref: `restricted:sha256:${sha256}` });
    expect((await audit()).some((e) => e.action === 'raw.continued' && e.grant === g.id && e.sha256 === sha256)).toBe(true);
    await env.ok(viewer(), 'revokeGrant', g.id);
  }, 30_000);
});
