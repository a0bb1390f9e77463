import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AUDIT_ACTIONS,
  AuditDetailsError,
  AuditLog,
  AuditLogDamagedError,
  canonicalJson,
  entryHash,
  GENESIS_PREV,
  validateDetails,
  withFileLock,
} from '../../app/audit';

let dir: string;
let log: AuditLog;
const actor = { user: 'alice', host: 'forensics-1' };
let clock = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-audit-'));
  clock = Date.parse('2026-11-30T01:15:00Z');
  log = new AuditLog(join(dir, 'audit.jsonl'), { actor, now: () => new Date(clock++) });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const digest = (n: number): string => n.toString(16).padStart(64, '0');

async function fill(n: number): Promise<string[]> {
  for (let i = 0; i < n; i++) await log.append(AUDIT_ACTIONS[i % AUDIT_ACTIONS.length]!, { sha256: digest(i), size: i, ok: i % 2 === 0 });
  return (await readFile(log.path, 'utf8')).split('\n').slice(0, -1);
}
const write = (lines: string[]): Promise<void> => writeFile(log.path, lines.map((l) => `${l}\n`).join(''));

describe('canonicalJson', () => {
  it('sorts keys recursively and has no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: 'x' }], 'A': null })).toBe('{"A":null,"a":[{"c":"x","d":true}],"b":1}');
  });
  it('refuses values JSON cannot carry exactly', () => {
    expect(() => canonicalJson({ a: undefined })).toThrow();
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson(1n)).toThrow();
  });
});

describe('AuditLog.append', () => {
  it('chains entries: seq from 1, genesis prev, hash over prev and canonical JSON', async () => {
    const a = await log.append('capture.stored', { record: '20261130T011500Z-1a2b3c4d', sha256: digest(1), size: 10 });
    const b = await log.append('raw.requested', { sha256: digest(1), reason: 'incident 42' });
    expect(a).toMatchObject({ seq: 1, prev: GENESIS_PREV, actor, action: 'capture.stored', ts: '2026-11-30T01:15:00.000Z', size: 10 });
    expect(b).toMatchObject({ seq: 2, prev: a.hash });
    const { hash, ...body } = a;
    expect(hash).toBe(entryHash(body));
    const { createHash } = await import('node:crypto');
    expect(hash).toBe(createHash('sha256').update(`${GENESIS_PREV}\n${canonicalJson(body)}`).digest('hex'));
    const lines = (await readFile(log.path, 'utf8')).split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual(a);
    expect((await stat(log.path)).mode & 0o777).toBe(0o600);
    expect(await log.verify()).toEqual({ ok: true, entries: 2, head: b.hash });
  });

  it('keeps entries in order under concurrent appends from one process', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => log.append('raw.opened', { n: i })));
    const result = await log.verify();
    expect(result).toMatchObject({ ok: true, entries: 40 });
  });

  it('rejects unknown actions and details that could carry payload', async () => {
    await expect(log.append('raw.read' as never, {})).rejects.toThrow(/unknown audit action/);
    const bad: unknown[] = [
      { s: 'x'.repeat(257) },
      { s: 'esc \x1b]52;c;aGk=\x07' },
      { s: 'caf\u00e9' },
      { s: 'nl\n' },
      { n: Number.POSITIVE_INFINITY },
      { n: null },
      { n: undefined },
      { b: Buffer.from('raw') },
      { nested: { deep: { deeper: { deepest: { tooDeep: 1 } } } } },
      { list: Array.from({ length: 300 }, () => 1) },
      { 'bad key!': 1 },
      { seq: 5 },
      { hash: 'x' },
      { prev: 'x' },
      { arr: ['ok', '\u009b'] },
    ];
    for (const details of bad) {
      await expect(log.append('raw.opened', details as never), JSON.stringify(details) ?? 'x').rejects.toBeInstanceOf(AuditDetailsError);
    }
    expect(() => validateDetails([] as never)).toThrow(AuditDetailsError);
    expect(() => validateDetails({ ok: ['a', 1, true, { k: 'v' }], s: 'x'.repeat(256) })).not.toThrow();
    expect(await log.verify()).toMatchObject({ ok: true, entries: 0 });
  });

  it('refuses to append after a torn or doctored last line', async () => {
    await fill(3);
    await appendFile(log.path, '{"seq":4,"ts"');
    await expect(log.append('raw.opened', {})).rejects.toBeInstanceOf(AuditLogDamagedError);
    const lines = await fill(0);
    await write(lines.slice(0, 2).concat(lines[2]!.replace('"size":2', '"size":3')));
    await expect(log.append('raw.opened', {})).rejects.toThrow(/does not check out/);
  });

  it('refuses to write through a symlink planted as the log', async () => {
    await writeFile(join(dir, 'elsewhere'), '');
    await symlink(join(dir, 'elsewhere'), log.path);
    await expect(log.append('raw.opened', {})).rejects.toThrow(/ELOOP/);
  });

  it('reads only the tail of the log, not the whole file', async () => {
    const lines = await fill(3);
    // 4 MiB of junk before a valid last entry: append must not parse (or even read) it.
    await writeFile(log.path, `${'x'.repeat(4 << 20)}\n${lines[2]}\n`);
    const e = await log.append('raw.opened', {});
    expect(e).toMatchObject({ seq: 4, prev: JSON.parse(lines[2]!).hash });
    expect(await log.verify()).toMatchObject({ ok: false, line: 1 });
  });

  it('finds the last line when it spans 64 KiB read blocks', async () => {
    await fill(5);
    const big = Object.fromEntries(Array.from({ length: 240 }, (_, i) => [`k${i}`, 'v'.repeat(250)]));
    await log.append('extract.released', big);
    const e = await log.append('raw.opened', { after: 'big' });
    expect(e.seq).toBe(7);
    expect(await log.verify()).toMatchObject({ ok: true, entries: 7 });
  });
});

describe('AuditLog.verify names the first bad line', () => {
  it('accepts a missing file as an empty log', async () => {
    expect(await log.verify()).toEqual({ ok: true, entries: 0, head: GENESIS_PREV });
  });

  it('edited entry (details changed)', async () => {
    const lines = await fill(5);
    lines[2] = lines[2]!.replace('"size":2', '"size":9');
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 3, reason: expect.stringContaining('entry edited') });
  });

  it.each([
    ['a shadowed duplicate key', (l: string) => l.replace('{"seq":', '{"size":7,"seq":')],
    ['added spacing', (l: string) => l.replace('"seq":', '"seq": ')],
    ['a re-escaped character', (l: string) => l.replace('"action":"', '"action":"\\u0072').replace('\\u0072r', '\\u0072')],
  ])('edited line whose parsed entry still hashes right: %s', async (_name, edit) => {
    const lines = await fill(3);
    const edited = edit(lines[1]!);
    expect(edited).not.toBe(lines[1]);
    lines[1] = edited;
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('not in the form Airlock writes') });
  });

  it('edited entry with a recomputed hash breaks the next link', async () => {
    const lines = await fill(5);
    const e = JSON.parse(lines[1]!) as Record<string, unknown>;
    e.size = 1000;
    e.hash = entryHash(e);
    lines[1] = JSON.stringify(e);
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 3, reason: expect.stringContaining('prev does not match the hash of line 2') });
  });

  it('deleted entry', async () => {
    const lines = await fill(5);
    lines.splice(1, 1);
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('sequence number 3 where 2 was expected') });
  });

  it('deleted entry with renumbered seq still breaks the chain', async () => {
    const lines = await fill(5);
    lines.splice(1, 1);
    lines[1] = lines[1]!.replace('"seq":3', '"seq":2');
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('prev does not match') });
  });

  it('inserted entry (duplicate of an earlier line)', async () => {
    const lines = await fill(5);
    lines.splice(3, 0, lines[0]!);
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 4, reason: expect.stringContaining('sequence number 1 where 4 was expected') });
  });

  it('inserted forged entry with plausible seq and self-consistent hash', async () => {
    const lines = await fill(5);
    const forged: Record<string, unknown> = { ...(JSON.parse(lines[2]!) as object), action: 'raw.granted' };
    forged.hash = entryHash(forged);
    lines.splice(3, 0, JSON.stringify(forged));
    await write(lines);
    // line 4 claims seq 3 (copied from line 3): the sequence gives it away
    expect(await log.verify()).toMatchObject({ ok: false, line: 4, reason: expect.stringContaining('sequence number 3 where 4 was expected') });
  });

  it('reordered entries', async () => {
    const lines = await fill(5);
    [lines[2], lines[3]] = [lines[3]!, lines[2]!];
    await write(lines);
    expect(await log.verify()).toMatchObject({ ok: false, line: 3, reason: expect.stringContaining('sequence number 4 where 3 was expected') });
  });

  it('truncated last line', async () => {
    const lines = await fill(4);
    await writeFile(log.path, `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 40)}`);
    expect(await log.verify()).toMatchObject({ ok: false, line: 4, reason: 'truncated last line (no trailing newline)' });
    // even a complete JSON object without its newline is a torn append
    await writeFile(log.path, `${lines.join('\n')}`);
    expect(await log.verify()).toMatchObject({ ok: false, line: 4, reason: 'truncated last line (no trailing newline)' });
  });

  it('non-JSON line, empty line, malformed entry', async () => {
    const lines = await fill(3);
    await write([lines[0]!, 'garbage', ...lines.slice(1)]);
    expect(await log.verify()).toMatchObject({ ok: false, line: 2, reason: 'not valid JSON' });
    await write([lines[0]!, '', ...lines.slice(1)]);
    expect(await log.verify()).toMatchObject({ ok: false, line: 2, reason: 'empty line' });
    await write([lines[0]!, lines[1]!.replace(/"action":"[^"]+"/, '"action":"raw.stolen"'), lines[2]!]);
    expect(await log.verify()).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('malformed entry: action') });
  });

  it('first entry with a non-genesis prev', async () => {
    const lines = await fill(2);
    const e = JSON.parse(lines[0]!) as Record<string, unknown>;
    e.prev = digest(7);
    e.hash = entryHash(e);
    await write([JSON.stringify(e), lines[1]!]);
    expect(await log.verify()).toMatchObject({ ok: false, line: 1, reason: expect.stringContaining('log start') });
  });

  it('list returns entries and flags bad lines', async () => {
    const lines = await fill(2);
    await write([lines[0]!, 'nope', lines[1]!]);
    const listed = await log.list();
    expect(listed.map((l) => ('entry' in l ? l.entry.seq : l.error))).toEqual([1, 'not valid JSON', 2]);
  });
});

describe('withFileLock', () => {
  const lockPath = (): string => join(dir, 'audit.lock');

  it('breaks a lock left by a dead process on this host', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const { hostname } = await import('node:os');
    await writeFile(lockPath(), JSON.stringify({ pid: Number(dead.stdout), host: hostname(), nonce: 'dead' }));
    const t = Date.now();
    expect(await withFileLock(lockPath(), async () => 'ran')).toBe('ran');
    expect(Date.now() - t).toBeLessThan(2000);
    await expect(stat(lockPath())).rejects.toThrow(/ENOENT/);
  });

  it('waits for a live holder and times out with a clear error', async () => {
    const { hostname } = await import('node:os');
    await writeFile(lockPath(), JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'live' }));
    await expect(withFileLock(lockPath(), async () => 'never', { timeoutMs: 150 })).rejects.toThrow(/timed out .*held by pid/);
    expect(JSON.parse(await readFile(lockPath(), 'utf8'))).toMatchObject({ nonce: 'live' }); // untouched
  });

  it('breaks a lock older than staleMs even if its holder looks alive', async () => {
    await writeFile(lockPath(), JSON.stringify({ pid: process.pid, host: 'other-host', nonce: 'old' }));
    const { utimes } = await import('node:fs/promises');
    const past = new Date(Date.now() - 60_000);
    await utimes(lockPath(), past, past);
    expect(await withFileLock(lockPath(), async () => 1, { staleMs: 30_000 })).toBe(1);
  });

  it('releases the lock when the critical section throws', async () => {
    await expect(withFileLock(lockPath(), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(stat(lockPath())).rejects.toThrow(/ENOENT/);
  });

  it('serializes critical sections', async () => {
    let inside = 0;
    let max = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withFileLock(lockPath(), async () => {
          max = Math.max(max, ++inside);
          await new Promise((r) => setTimeout(r, 2));
          inside--;
        }),
      ),
    );
    expect(max).toBe(1);
  });
});
