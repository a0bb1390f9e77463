// Following a running capture from the viewer's side (app/services/follow): a real capture that
// prints slowly is followed through the bridge as it grows, until it is sealed; a capture whose
// Airlock died is reported interrupted; forged calls (an id that is not running, a path trick, a
// linked directory, a stream it does not have, an offset past the text) are refused; stored text
// that is not inert is refused; the raw bytes are scanned once, whatever the number of polls.
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnvironment, planSandbox, protectedPaths } from '../../../../app/capture';
import { captureToVault } from '../../../../app/capture/stored-capture';
import { createAppServices, type AppServices } from '../../../../app/services/bridge/app-services';
import type { Caller } from '../../../../app/services/bridge/dispatcher';
import { RunningScan } from '../../../../app/services/follow/scan';
import { newRecordId, Vault } from '../../../../app/vault';
import type { BridgeWire } from '../../../../shared/bridge/contract';
import type { FollowUpdate, RunningSummary } from '../../../../shared/bridge/types';
import { DEFAULT_LIMITS } from '../../../../shared/parser';

const VIEWER: Caller = { windowId: 1, origin: 'airlock://app', mainFrame: true };

let dir: string;
let vault: Vault;
let services: AppServices;

const call = async <T>(method: string, ...args: unknown[]): Promise<BridgeWire<T>> => (await services.dispatcher.call(VIEWER, method, args)) as BridgeWire<T>;
const ok = async <T>(method: string, ...args: unknown[]): Promise<T> => {
  const r = await call<T>(method, ...args);
  if (!r.ok) throw new Error(`[${r.code}] ${r.message}`);
  return r.value;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startCapture(script: string, maxText = 1 << 20): Promise<{ id: Promise<string>; done: Promise<unknown> }> {
  const sandbox = await planSandbox('none', { protect: protectedPaths(vault.root, process.env), profile: 'strict' });
  const { env, summary } = childEnvironment({ PATH: process.env.PATH, HOME: process.env.HOME }, []);
  let started!: (id: string) => void;
  const id = new Promise<string>((r) => (started = r));
  const done = captureToVault({
    vault, argv: ['sh', '-c', script], cwd: dir, env, envSummary: summary, maxBytes: 1 << 20, maxText, cr: 'newline', limits: {}, timeoutMs: 60_000, sandbox,
    onStart: started,
  });
  return { id, done };
}

/** Follows `id`'s stdout until `until` holds or it is no longer running; returns every update and the text put together. */
async function followUntil(id: string, until: (text: string, u: FollowUpdate) => boolean, timeoutMs = 20_000, start = 0): Promise<{ updates: FollowUpdate[]; text: string; next: number }> {
  const updates: FollowUpdate[] = [];
  let text = '';
  let from = start;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const u = await ok<FollowUpdate>('followRunning', id, 'stdout', from, 64);
    updates.push(u);
    expect(u.from).toBe(from);
    text += u.text;
    from = u.next;
    if (until(text, u) || u.state !== 'running') return { updates, text, next: from };
    if (Date.now() > end) throw new Error(`gave up following ${id}: ${JSON.stringify(text)}`);
    await sleep(40);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-follow-'));
  await chmod(dir, 0o700);
  vault = await Vault.open(join(dir, 'vault'), { create: true });
  services = createAppServices({
    vault, demo: false, version: 'test', origins: { viewer: 'airlock://app', prompt: 'airlock://prompt' },
    windows: { kindOf: (w) => (w === 1 ? 'viewer' : null) }, opener: { open: async () => undefined, close: () => undefined },
    chooseFile: async () => null, chooseSavePath: async () => null, writeClipboard: () => undefined,
    follow: { inline: true, minIntervalMs: 10 },
  });
});
afterAll(async () => {
  await services.shutdown();
  await rm(dir, { recursive: true, force: true });
});

describe('following a running capture', () => {
  it('lists it, follows its text as it grows with counts, then points at the sealed record', async () => {
    const { id: idP, done } = await startCapture('for i in 1 2 3; do printf "line $i \\033[31mred\\033[0m \\033]52;c;SECRETPAYLOAD\\007\\n"; sleep 0.4; done; printf "prompt> "; sleep 0.6; echo end');
    const id = await idP;
    const listed = await ok<RunningSummary[]>('listRunning');
    expect(listed.map((r) => r.id)).toContain(id);
    expect(listed.find((r) => r.id === id)).toMatchObject({ state: 'running', streams: ['stdout', 'stderr'], title: expect.stringContaining('sh -c') });

    // The first line is there while the command still runs.
    const first = await followUntil(id, (t) => t.includes('line 1'));
    expect(first.updates.at(-1)!.state).toBe('running');
    // Then the rest, growing: several updates brought text, none repeated any.
    const rest = await followUntil(id, (_t, u) => u.state === 'sealed', 30_000, first.next);
    const text = first.text + rest.text;
    expect(text).toBe('line 1 red \nline 2 red \nline 3 red \nprompt> end\n');
    expect([...first.updates, ...rest.updates].filter((u) => u.text.length > 0).length).toBeGreaterThan(2);
    // The unfinished prompt showed early while the command slept after it.
    expect(rest.updates.some((u) => u.pending === 'prompt> ')).toBe(true);
    // Counts of what was removed grew with the bytes, and never carry a payload.
    const withCounts = rest.updates.filter((u) => u.scannedBytes > 0);
    expect(withCounts.at(-1)!.removal.removedSpans).toBeGreaterThanOrEqual(9);
    expect(withCounts.at(-1)!.minimap.counts.some((row) => row.some((n) => n > 0))).toBe(true);
    expect(JSON.stringify([...first.updates, ...rest.updates])).not.toContain('SECRETPAYLOAD');
    const sealed = rest.updates.at(-1)!;
    await done;
    const record = await vault.getRecord(id);
    expect(sealed.sealed).toEqual({ recordId: id, ref: `restricted:sha256:${record.raw.stdout.sha256}`, interrupted: false });
    // Sealed: no longer listed as running, and a later call still says where the record is.
    expect((await ok<RunningSummary[]>('listRunning')).map((r) => r.id)).not.toContain(id);
    expect((await ok<FollowUpdate>('followRunning', id, 'stdout', 0, 16)).state).toBe('sealed');
  }, 40_000);

  it('a capture that never prints a newline shows its text early', async () => {
    const { id: idP, done } = await startCapture('printf "downloading... 10%%"; sleep 1.2; printf " 100%%"');
    const id = await idP;
    // What the redaction stage lets show of it (its preview holds back what a rest of the line could make a secret).
    const seen = await followUntil(id, (t, u) => (t + u.pending).includes('downloading...'));
    expect(seen.updates.at(-1)!.state).toBe('running');
    expect(seen.text).toBe('');
    // The rest settles when the stream ends: it is all there before the view is told to switch.
    const rest = await followUntil(id, (_t, u) => u.state === 'sealed', 20_000, seen.next);
    expect(rest.text).toBe('downloading... 10% 100%');
    await done;
  }, 20_000);

  it('text past the capture\'s --max-text is not stored while it runs: the update says so', async () => {
    const { id: idP, done } = await startCapture('i=0; while [ $i -lt 20 ]; do printf "row %02d \\033[1mbold\\033[0m\\n" $i; i=$((i+1)); done; sleep 0.8; echo end', 64);
    const id = await idP;
    const seen = await followUntil(id, (_t, u) => u.textPastLimit !== null);
    const u = seen.updates.at(-1)!;
    expect(u.state).toBe('running');
    expect(u.textPastLimit).toBe(64);
    expect(Buffer.byteLength(seen.text)).toBeLessThanOrEqual(64);
    expect(u.rawBytes).toBe(400);
    await done;
  }, 20_000);

  it('the raw bytes are scanned once: polls do not start over from byte 0', async () => {
    // The scan itself: feeding in pieces gives the counts of one pass.
    const options = { cr: 'newline' as const, limits: { ...DEFAULT_LIMITS } };
    const bytes = Buffer.from('a\x1b[31mb\x1b]0;t\x07c\n'.repeat(5000));
    const whole = new RunningScan(options);
    whole.write(bytes);
    const pieces = new RunningScan(options);
    for (let i = 0; i < bytes.length; i += 777) pieces.write(bytes.subarray(i, i + 777));
    expect(pieces.scanned).toBe(bytes.length);
    expect(pieces.snapshot(64).report).toEqual(whole.snapshot(64).report);
    expect(pieces.snapshot(64).minimap).toEqual(whole.snapshot(64).minimap);
    // Buckets widen as the stream grows, and the span starts are all still counted.
    const total = (m: { counts: number[][] }) => m.counts.flat().reduce((a, b) => a + b, 0);
    expect(total(whole.snapshot(4096).minimap)).toBe(whole.snapshot(1).report.removed_spans);
  });
});

describe('what a follow call refuses', () => {
  it('an id that is not a running capture, and path tricks', async () => {
    const notRunning = newRecordId(new Date());
    for (const id of [notRunning, '../records', '..', 'a/b', '.', `${notRunning}/../x`, 'running', '']) {
      const r = await call('followRunning', id, 'stdout', 0, 16);
      expect(r.ok, id).toBe(false);
      if (!r.ok) expect(['not-found', 'bad-request']).toContain(r.code);
      const s = await call('getRunningScreen', id, 'stdout', { cols: 80, rows: 24 }, null);
      expect(s.ok, id).toBe(false);
    }
    // Streams and offsets are checked by the schema before anything is read.
    for (const args of [[notRunning, '../x', 0, 16], [notRunning, 'stdout', -1, 16], [notRunning, 'stdout', 0, 0], [notRunning, 'stdout', 0, 5000]]) {
      const r = await call('followRunning', ...args);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.code).toBe('bad-request');
    }
  });

  it('a running/ entry that is a link to a directory elsewhere is not followed', async () => {
    const id = newRecordId(new Date());
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(elsewhere, 'meta.json'), JSON.stringify({ format: 1, id, started_at: 'x', owner: { pid: process.pid, host: '00000000', boot: null, start: null }, streams: ['stdout'] }));
    await writeFile(join(elsewhere, 'stdout.txt'), 'not from the vault\n');
    await mkdir(join(vault.root, 'running'), { recursive: true, mode: 0o700 });
    await symlink(elsewhere, join(vault.root, 'running', id));
    const r = await call('followRunning', id, 'stdout', 0, 16);
    expect(r).toMatchObject({ ok: false, code: 'not-found' });
    expect((await ok<RunningSummary[]>('listRunning')).map((x) => x.id)).not.toContain(id);
    await rm(join(vault.root, 'running', id));
  });

  it('an interrupted capture (its Airlock is gone) says so; a stream it lacks and an offset past its text are refused', async () => {
    const id = newRecordId(new Date(Date.now() - 1000));
    const writer = await vault.startRunning(id, ['stdout', 'stderr'], { command: 'make all', cwd: '/w', redaction: { mode: 'on' } });
    writer.text('stdout', Buffer.from('compiling\n'));
    writer.line(['c', 0, 0, 'stdout', 0, 10, 0, 10, 5, 0, 10, 0]);
    await writer.close();
    // Its owner: a process that no longer runs.
    const metaPath = join(vault.root, 'running', id, 'meta.json');
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as { owner: { pid: number; start: string | null } };
    meta.owner.pid = 2 ** 22 + 12345;
    await writeFile(metaPath, JSON.stringify(meta));
    const listed = (await ok<RunningSummary[]>('listRunning')).find((r) => r.id === id);
    expect(listed).toMatchObject({ state: 'interrupted', title: 'make all', textBytes: { stdout: 10, stderr: 0 } });
    const u = await ok<FollowUpdate>('followRunning', id, 'stdout', 0, 16);
    expect(u).toMatchObject({ state: 'interrupted', text: 'compiling\n', next: 10, rawBytes: 10, sealed: null });
    expect(await call('followRunning', id, 'stdin', 0, 16)).toMatchObject({ ok: false, code: 'bad-request' });
    expect(await call('followRunning', id, 'stdout', 11, 16)).toMatchObject({ ok: false, code: 'bad-request' });
  });

  it('a capture run with redaction off (or a meta.json that does not say) serves no text while it runs', async () => {
    for (const fields of [{ redaction: { mode: 'off' } }, {}]) {
      const id = newRecordId(new Date(Date.now() - 3000 - Object.keys(fields).length * 1000));
      const writer = await vault.startRunning(id, ['stdout'], { command: 'x', ...fields });
      writer.text('stdout', Buffer.from('token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n'));
      writer.line(['c', 0, 0, 'stdout', 0, 49, 0, 49, 5, 0, 49, 0]);
      await writer.close();
      const u = await ok<FollowUpdate>('followRunning', id, 'stdout', 0, 16);
      expect(u).toMatchObject({ text: '', textBytes: 0, textWithheld: true, rawBytes: 49 });
      expect(await call('followRunning', id, 'stdout', 1, 16)).toMatchObject({ ok: false, code: 'bad-request' });
    }
  });

  it('stored text that is not inert (an altered file) is refused, not shown', async () => {
    const id = newRecordId(new Date(Date.now() - 2000));
    const writer = await vault.startRunning(id, ['stdout'], { command: 'x', redaction: { mode: 'on' } });
    writer.text('stdout', Buffer.from('ok\n\x1b]52;c;AAAA\x07\n'));
    await writer.close();
    const r = await call('followRunning', id, 'stdout', 0, 16);
    expect(r).toMatchObject({ ok: false, code: 'forbidden' });
    if (!r.ok) expect(r.message).not.toContain('AAAA');
  });
});

describe('the scan goes on where it stopped', () => {
  it('a stream polled many times as it grows is read once, and counts as one pass over it', async () => {
    const { ScanHost } = await import('../../../../app/services/follow/scan-host');
    const { appendFile } = await import('node:fs/promises');
    const file = join(dir, 'growing.part');
    await writeFile(file, '');
    const options = { cr: 'newline' as const, limits: { ...DEFAULT_LIMITS } };
    const host = new ScanHost();
    const unit = Buffer.from('step \x1b[32mok\x1b[0m \x1b]52;c;eA==\x07 done\n');
    let size = 0;
    let polls = 0;
    for (let step = 0; step < 200; step++) {
      await appendFile(file, unit);
      size += unit.length;
      // Several polls per growth step, some asking past what the file holds yet.
      for (const upTo of [size, size + 100, size]) {
        const r = await host.handle({ id: ++polls, type: 'advance', key: 'k', path: file, upTo, options, buckets: 32 });
        expect(r.ok).toBe(true);
      }
    }
    expect(host.bytesRead).toBe(size);
    const last = await host.handle({ id: ++polls, type: 'advance', key: 'k', path: file, upTo: size, options, buckets: 32 });
    const whole = new RunningScan(options);
    whole.write(Buffer.concat(Array.from({ length: 200 }, () => unit)));
    expect(last.ok && last.snapshot!.report).toEqual(whole.snapshot(32).report);
    expect(last.ok && last.snapshot!.report.removed_spans).toBe(600);
    await host.close();
  });
});
