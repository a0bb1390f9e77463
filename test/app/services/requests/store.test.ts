import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditFile } from '../../../../app/audit';
import { RequestError, RequestStore, type NewRequest } from '../../../../app/services/requests';
import { HOSTILE, requestVault } from './helpers';

type Env = Awaited<ReturnType<typeof requestVault>>;
let env: Env;
afterEach(async () => env?.cleanup());

const ask = (ref: string, over: Partial<NewRequest> = {}): NewRequest => ({ artifact: ref, kind: 'hex-range', range: [0, 16], expect: null, search: null, reason: 'incident 42: what wrote the clipboard?', ...over });
const log = (e: Env): string => (existsSync(e.audit.path) ? readFileSync(e.audit.path, 'utf8') : '');
const actions = (e: Env): string[] => log(e).trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { action: string }).action);
const files = (e: Env): string[] => readdirSync(join(e.vault.root, 'requests')).filter((n) => !n.startsWith('.lock'));
async function refusal(p: Promise<unknown>): Promise<RequestError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(RequestError);
  return err as RequestError;
}

describe('RequestStore: queue and decide', () => {
  it('queues a pending request in a private file that names its audit entry', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref), 'cli');
    expect(r).toMatchObject({ state: 'pending', kind: 'hex-range', range: [0, 16], sha256: env.sha256, size: env.size, decision: null, extract: null });
    expect(r.id).toMatch(/^req-\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    expect(Date.parse(r.expires_at) - Date.parse(r.created_at)).toBe(24 * 3600_000);
    expect(statSync(join(env.vault.root, 'requests')).mode & 0o777).toBe(0o700);
    expect(statSync(join(env.vault.root, 'requests', `${r.id}.json`)).mode & 0o777).toBe(0o600);
    const entry = JSON.parse(readFileSync(env.audit.path, 'utf8').trim()) as Record<string, unknown>;
    expect(entry).toMatchObject({ action: 'request.created', request: r.id, sha256: env.sha256, kind: 'hex-range', range: [0, 16], via: 'cli', seq: r.audit.created.seq, hash: r.audit.created.hash });
    expect((await verifyAuditFile(env.audit.path)).ok).toBe(true);
  });

  it('approves with a hex extract computed from the raw file, audited with its digest and size, never bytes', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref, { range: [7, 20] }), 'mcp');
    const a = await env.store.approve(r.id, { via: 'cli', note: 'ok for the incident' });
    expect(a.state).toBe('approved');
    expect(a.extract).toEqual({ kind: 'hex-range', range: [7, 20], rows: ['00000007  1b 5b 33 31 6d 46 41 49  4c 1b 5b 30 6d           |^[[31mFAIL^[[0m|'] });
    expect(a.decision).toMatchObject({ by: { via: 'cli' }, note: 'ok for the incident' });
    const last = JSON.parse(readFileSync(env.audit.path, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ action: 'request.approved', request: r.id, extract_sha256: a.extract_sha256, extract_bytes: a.extract_bytes, via: 'cli' });
    expect(JSON.stringify(last)).not.toContain('FAIL');
    await expect(env.store.assertReleasable(a)).resolves.toBeUndefined();
    expect(await refusal(env.store.approve(r.id, { via: 'cli' }))).toMatchObject({ code: 'conflict' });
    expect(await refusal(env.store.deny(r.id, { via: 'cli' }))).toMatchObject({ code: 'conflict' });
  });

  it('digest: the agent learns the digest and one bit', async () => {
    env = await requestVault();
    const { createHash } = await import('node:crypto');
    const whole = createHash('sha256').update(HOSTILE).digest('hex');
    const part = createHash('sha256').update(HOSTILE.subarray(0, 32)).digest('hex');
    const r1 = await env.store.approve((await env.store.create(ask(env.ref, { kind: 'digest', range: null, expect: whole.toUpperCase() }), 'mcp')).id, { via: 'cli' });
    expect(r1.extract).toEqual({ kind: 'digest', range: null, bytes: HOSTILE.length, sha256: whole, expect: whole, match: true });
    const r2 = await env.store.approve((await env.store.create(ask(env.ref, { kind: 'digest', range: [0, 32], expect: whole }), 'mcp')).id, { via: 'cli' });
    expect(r2.extract).toMatchObject({ sha256: part, match: false });
  });

  it('digest: refuses a range shorter than 32 bytes, whose digest would give its bytes away (finding 10)', async () => {
    env = await requestVault();
    for (const range of [[0, 2], [10, 41]] as [number, number][]) {
      expect(await refusal(env.store.create(ask(env.ref, { kind: 'digest', range, expect: null }), 'mcp'))).toMatchObject({
        code: 'bad-request',
        message: expect.stringContaining('a digest covers at least 32 bytes'),
      });
    }
    // Nor the whole of an artifact that short.
    const tiny = await requestVault({}, Buffer.from('ok'));
    expect(await refusal(tiny.store.create(ask(tiny.ref, { kind: 'digest', range: null, expect: null }), 'mcp'))).toMatchObject({ code: 'bad-request' });
    await tiny.cleanup();
    expect((await env.store.list()).requests).toEqual([]);
  });

  it('text: the range through the capture sanitizer, its removal counts and bounded search hits', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref, { kind: 'text', range: null, search: 'abc123' }), 'mcp');
    const a = await env.store.approve(r.id, { via: 'desktop' });
    if (a.extract?.kind !== 'text') throw new Error('not a text extract');
    expect(a.extract.text).toBe('build: FAIL\nvalue=abc123 ok\nfile exe.txt\nend of log\n');
    expect(a.extract.text).not.toMatch(/[\x1b\x07\u202e]/);
    expect(a.extract.text).not.toContain('c2VjcmV0');
    expect(a.extract.removed.classes).toMatchObject({ csi: 2, osc: 2 });
    expect(a.extract.search).toEqual({ term: 'abc123', total: 1, hits: [{ offset: 18, line: 2, context: 'build: FAIL\\x0avalue=abc123 ok\\x0afile exe.txt\\x0aend of log\\x0a' }] });
  });

  it('text: a range that starts inside an OSC 52 payload reads as the whole stream does (no payload as text)', async () => {
    env = await requestVault();
    const inPayload = HOSTILE.indexOf('VjcmV0');
    const r = await env.store.create(ask(env.ref, { kind: 'text', range: [inPayload, inPayload + 30], search: null }), 'mcp');
    const a = await env.store.approve(r.id, { via: 'desktop' });
    if (a.extract?.kind !== 'text') throw new Error('not a text extract');
    // Parsed alone, the range would start in ground and hand out 'VjcmV0' as text.
    expect(a.extract.text).not.toMatch(/VjcmV0|cmV0|V0/);
    // The range ends inside the title's OSC: cut there, its payload is not text either.
    expect(a.extract.text).toBe('value=abc123 ok\n');
    // The clipboard OSC began before the range: the only span that starts in it is the title's.
    expect(a.extract.removed.classes).toEqual({ osc: 1 });
    const r2 = await env.store.create(ask(env.ref, { kind: 'text', range: [HOSTILE.indexOf('\x1b]0;'), HOSTILE.length], search: null }), 'mcp');
    const b = await env.store.approve(r2.id, { via: 'desktop' });
    if (b.extract?.kind !== 'text') throw new Error('not a text extract');
    expect(b.extract.text).toBe('file exe.txt\nend of log\n');
    expect(b.extract.removed.classes).toEqual({ osc: 1, invisible: 2 });
  });

  it('deny reads nothing and records who denied and why', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref), 'mcp');
    const d = await env.store.deny(r.id, { via: 'cli', note: 'not \u001b[31mneeded' });
    expect(d).toMatchObject({ state: 'denied', extract: null, decision: { note: 'not \u001b[31mneeded' } });
    expect(actions(env)).toEqual(['request.created', 'request.denied']);
    const last = JSON.parse(readFileSync(env.audit.path, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last.note).toBe('not \\u001b[31mneeded');
  });
});

describe('RequestStore: refusals queue nothing', () => {
  it.each<[string, Partial<NewRequest>, string]>([
    ['unknown artifact', { artifact: `restricted:sha256:${'0'.repeat(64)}` }, 'not-found'],
    ['bad reference', { artifact: '../../etc/passwd' }, 'bad-request'],
    ['reversed range', { range: [10, 4] }, 'bad-request'],
    ['range past the end', { range: [0, 10_000] }, 'bad-request'],
    ['hex-range without a range', { range: null }, 'bad-request'],
    ['missing reason', { reason: '   ' }, 'bad-request'],
    ['bad hex', { kind: 'digest', expect: 'xyz' }, 'bad-request'],
    ['expect with hex-range', { expect: 'a'.repeat(64) }, 'bad-request'],
    ['search with digest', { kind: 'digest', search: 'x' }, 'bad-request'],
    ['unknown kind', { kind: 'raw' }, 'bad-request'],
  ])('%s', async (_name, over, code) => {
    env = await requestVault();
    expect(await refusal(env.store.create(ask(env.ref, over), 'cli'))).toMatchObject({ code });
    expect(log(env).trim()).toBe('');
  });

  it('an oversize hex range is refused as too large', async () => {
    env = await requestVault({}, new Uint8Array((1 << 20) + 1));
    expect(await refusal(env.store.create(ask(env.ref, { range: [0, 65_537] }), 'cli'))).toMatchObject({ code: 'too-large' });
    expect(await refusal(env.store.create(ask(env.ref, { kind: 'text', range: null }), 'cli'))).toMatchObject({ code: 'too-large' });
  });
});

describe('RequestStore: ids, tampering and expiry', () => {
  it('refuses traversal and malformed ids before touching the disk', async () => {
    env = await requestVault();
    for (const id of ['../records/x', '/etc/passwd', 'req-20260101T000000Z-0000000g', 'req-20260101T000000Z-00000000\u0000', '']) {
      expect(await refusal(env.store.get(id))).toMatchObject({ code: 'bad-id' });
    }
  });

  it('refuses a tampered file: bad JSON, a forged approval, a swapped extract, a link', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref), 'mcp');
    const path = join(env.store.dir, `${r.id}.json`);
    const good = readFileSync(path, 'utf8');
    writeFileSync(path, '{not json');
    expect(await refusal(env.store.get(r.id))).toMatchObject({ code: 'damaged' });
    // Approved without a decision: the schema's consistency check.
    writeFileSync(path, good.replace('"state": "pending"', '"state": "approved"'));
    expect(await refusal(env.store.get(r.id))).toMatchObject({ code: 'damaged' });
    // A forged approval with a decision and an extract, but no request.approved entry in the log.
    const forged = { ...(JSON.parse(good) as Record<string, unknown>), state: 'approved', decision: { at: r.created_at, by: { user: 'x', host: 'y', via: 'cli' }, note: null }, extract: { kind: 'hex-range', range: [0, 16], rows: ['forged'] }, extract_sha256: 'a'.repeat(64), extract_bytes: 3, audit: { created: r.audit.created, decided: r.audit.created } };
    writeFileSync(path, JSON.stringify(forged));
    const read = await env.store.get(r.id);
    expect(await refusal(env.store.assertReleasable(read))).toMatchObject({ code: 'damaged' });
    // The id inside must be the file's name.
    writeFileSync(path, good.replace(r.id, 'req-20000101T000000Z-00000000'));
    expect(await refusal(env.store.get(r.id))).toMatchObject({ code: 'damaged' });
    writeFileSync(join(env.dir, 'outside.json'), good);
    writeFileSync(path, '');
    const { unlinkSync } = await import('node:fs');
    unlinkSync(path);
    symlinkSync(join(env.dir, 'outside.json'), path);
    expect(await refusal(env.store.get(r.id))).toMatchObject({ code: 'damaged' });
  });

  it('a swapped extract after approval is not released', async () => {
    env = await requestVault();
    const a = await env.store.approve((await env.store.create(ask(env.ref), 'mcp')).id, { via: 'cli' });
    const path = join(env.store.dir, `${a.id}.json`);
    writeFileSync(path, readFileSync(path, 'utf8').replace('62 75 69 6c', '41 41 41 41'));
    expect(await refusal(env.store.assertReleasable(await env.store.get(a.id)))).toMatchObject({ code: 'damaged' });
  });

  it('expires a pending request on read, audits it once, and refuses to decide it', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    env = await requestVault({ now: () => new Date(now), ttlMs: 60_000 });
    const r = await env.store.create(ask(env.ref), 'mcp');
    now += 59_000;
    expect((await env.store.get(r.id)).state).toBe('pending');
    now += 1_000;
    expect((await env.store.get(r.id)).state).toBe('expired');
    expect((await env.store.list()).requests.map((x) => x.state)).toEqual(['expired']);
    expect(await refusal(env.store.approve(r.id, { via: 'cli' }))).toMatchObject({ code: 'conflict' });
    expect(actions(env)).toEqual(['request.created', 'request.expired']);
    expect((await verifyAuditFile(env.audit.path)).ok).toBe(true);
  });

  it('the raw file must still hash to the reference: a swapped file releases nothing', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref), 'mcp');
    const raw = env.vault.rawPath(env.sha256);
    const { chmodSync } = await import('node:fs');
    chmodSync(raw, 0o600);
    writeFileSync(raw, Buffer.alloc(HOSTILE.length, 0x41));
    expect(await refusal(env.store.approve(r.id, { via: 'cli' }))).toMatchObject({ code: 'mismatch' });
    expect((await env.store.get(r.id)).state).toBe('pending');
    expect(actions(env)).toEqual(['request.created']);
  });
});

describe('RequestStore: concurrency and write failures', () => {
  it('concurrent creates get distinct ids and one audit entry each; concurrent decisions: exactly one wins', async () => {
    env = await requestVault();
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => env.store.create(ask(env.ref, { range: [i, i + 4] }), 'mcp')));
    expect(new Set(made.map((r) => r.id)).size).toBe(12);
    expect(files(env).length).toBe(12);
    // A second store (another process) deciding the same request at once.
    const other = new RequestStore(env.vault, env.audit);
    const results = await Promise.allSettled([env.store.approve(made[0].id, { via: 'cli' }), other.deny(made[0].id, { via: 'desktop' }), other.approve(made[0].id, { via: 'desktop' })]);
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    expect(actions(env).filter((a) => a === 'request.approved' || a === 'request.denied')).toHaveLength(1);
    expect((await verifyAuditFile(env.audit.path)).ok).toBe(true);
  });

  it('a full disk while writing the request leaves no file and no audit entry', async () => {
    env = await requestVault();
    const enospc = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const full = new RequestStore(env.vault, env.audit, { writeFile: async () => Promise.reject(enospc) });
    await expect(full.create(ask(env.ref), 'cli')).rejects.toThrow('ENOSPC');
    expect(files(env)).toEqual([]);
    expect(log(env)).toBe('');
    // The same for a decision: the request stays pending, with no decision entry.
    const r = await env.store.create(ask(env.ref), 'cli');
    await expect(full.approve(r.id, { via: 'cli' })).rejects.toThrow('ENOSPC');
    expect((await env.store.get(r.id)).state).toBe('pending');
    expect(actions(env)).toEqual(['request.created']);
    expect(files(env).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('an audit line that cannot be written after the file was puts the file back', async () => {
    env = await requestVault();
    const r = await env.store.create(ask(env.ref), 'cli');
    const failing = {
      entryAt: (seq: number) => env.audit.entryAt(seq),
      append: async (_action: never, _details: never, before?: (e: never) => Promise<void>) => {
        await before?.({ seq: 99, hash: 'b'.repeat(64) } as never);
        throw Object.assign(new Error('ENOSPC while appending'), { code: 'ENOSPC' });
      },
    };
    const store = new RequestStore(env.vault, failing);
    await expect(store.approve(r.id, { via: 'cli' })).rejects.toThrow('ENOSPC');
    expect((await env.store.get(r.id)).state).toBe('pending');
    await expect(store.create(ask(env.ref), 'cli')).rejects.toThrow('ENOSPC');
    expect(files(env)).toEqual([`${r.id}.json`]);
  });
});

describe('RequestStore: bound to the audit log, and retention', () => {
  it('releases nothing once any part of an approved request file was edited', async () => {
    env = await requestVault();
    const r = await env.store.approve((await env.store.create(ask(env.ref), 'mcp')).id, { via: 'cli' });
    await env.store.assertReleasable(await env.store.get(r.id));
    const path = join(env.vault.root, 'requests', `${r.id}.json`);
    const original = readFileSync(path, 'utf8');
    // The reason, the requester, the range: none of them is the extract, all of them are bound.
    for (const edit of [(x: Record<string, unknown>) => (x.reason = 'routine'), (x: Record<string, unknown>) => (x.range = [0, 8]), (x: Record<string, unknown>) => ((x.requester as { via: string }).via = 'cli')]) {
      const doctored = JSON.parse(original) as Record<string, unknown>;
      edit(doctored);
      writeFileSync(path, JSON.stringify(doctored, null, 2));
      expect(await refusal(env.store.get(r.id).then((x) => env.store.assertReleasable(x)))).toMatchObject({ code: 'damaged' });
    }
    writeFileSync(path, original);
    expect((await env.vault.verify()).problems).toEqual([]);
  });

  it('removes approved extracts of pruned artifacts (request.pruned), and then releases nothing', async () => {
    env = await requestVault();
    const r = await env.store.approve((await env.store.create(ask(env.ref), 'mcp')).id, { via: 'cli' });
    expect(await env.store.pruneExtracts(['0'.repeat(64)])).toEqual([]);
    expect(await env.store.pruneExtracts([env.sha256])).toEqual([r.id]);
    const after = await env.store.get(r.id);
    expect(after).toMatchObject({ state: 'approved', extract: null, extract_pruned_at: expect.any(String) });
    expect(readFileSync(join(env.vault.root, 'requests', `${r.id}.json`), 'utf8')).not.toMatch(/1b 5b 33 31/);
    expect(actions(env)).toEqual(['request.created', 'request.approved', 'request.pruned']);
    await env.store.assertReleasable(after);
    expect((await env.vault.verify()).problems).toEqual([]);
    // A raw file gone without prune (deleted by hand): the stored extract is not released either.
    const r2 = await env.store.approve((await env.store.create(ask(env.ref), 'mcp')).id, { via: 'cli' });
    await (await import('node:fs/promises')).unlink(env.vault.rawPath(env.sha256));
    expect(await refusal(env.store.assertReleasable(await env.store.get(r2.id)))).toMatchObject({ code: 'not-found' });
  });
});
