// exportHexDump: main writes the hex dump of a selection or of all a grant covers (streamed, 0600,
// atomic), audits which (`text.exported` with scope and range) and counts it as a read of the
// grant; it refuses without a grant, another window's grant, and bytes outside a ranged grant.
// copyText refuses an empty text (no empty clipboard write audited as text.copied).
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKER, approve, makeEnv, type Env } from './env';

let env: Env;
beforeEach(async () => {
  env = await makeEnv();
});
afterEach(async () => env.close());

async function exported(): Promise<Record<string, unknown>[]> {
  return (await env.services.audit.list()).flatMap((l) => ('entry' in l && l.entry.action === 'text.exported' ? [l.entry as unknown as Record<string, unknown>] : []));
}

describe('exportHexDump', () => {
  it('dumps the whole artifact, inert, 0600, and the audit entry says it was the whole artifact', async () => {
    const grant = await approve(env);
    const r = await env.ok<{ saved: boolean; name: string; scope: string; range: number[] }>(env.viewer(), 'exportHexDump', grant, {});
    expect(r).toMatchObject({ saved: true, scope: 'artifact', range: [0, env.markerSize] });
    const file = join(env.dir, r.name);
    const text = await readFile(file, 'utf8');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(text).toMatch(/^# .*\n# whole artifact: offset 0x0, \d+ bytes\n00000000 {2}62 65 66 6f 72 65 20 1b {2}5d 35 32 3b 63 3b 41 49 {2}\|before \^\[\]52;c;AI\|\n/);
    // Rows cover every byte; no control byte and no raw payload bytes reach the file (hex and caret only).
    expect(text.trimEnd().split('\n').filter((l) => !l.startsWith('#'))).toHaveLength(Math.ceil(env.markerSize / 16));
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(await exported()).toEqual([expect.objectContaining({ kind: 'hex-dump', scope: 'artifact', range: [0, env.markerSize], bytes: env.markerSize, grant })]);
    // No temp file left beside it.
    expect((await readdir(env.dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // The export is a read of the grant: its raw.opened entry counts it.
    await env.ok(env.viewer(), 'revokeGrant', grant);
    const opened = (await env.services.audit.list()).flatMap((l) => ('entry' in l && l.entry.action === 'raw.opened' ? [l.entry] : []));
    expect(opened[0]).toMatchObject({ reads: 1, bytes: env.markerSize, ranges: [[0, env.markerSize]] });
  });

  it('dumps a selection, starting at its offset, and the audit entry says it was a selection', async () => {
    const grant = await approve(env);
    const r = await env.ok<{ name: string; scope: string }>(env.viewer(), 'exportHexDump', grant, { range: [7, 12] });
    expect(r.scope).toBe('selection');
    const rows = (await readFile(join(env.dir, r.name), 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
    expect(rows).toEqual(['00000007  1b 5d 35 32 3b                                    |^[]52;|']);
    expect((await exported())[0]).toMatchObject({ scope: 'selection', range: [7, 12], bytes: 5 });
  });

  it('a ranged grant dumps only its range; a selection outside it is refused', async () => {
    const grant = await approve(env, 1, env.markerRef, [7, 20]);
    const r = await env.ok<{ name: string; scope: string; range: number[] }>(env.viewer(), 'exportHexDump', grant, {});
    expect(r).toMatchObject({ scope: 'granted-range', range: [7, 20] });
    const text = await readFile(join(env.dir, r.name), 'utf8');
    expect(text).not.toContain('before');
    expect(await env.call(env.viewer(), 'exportHexDump', grant, { range: [0, 8] })).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await env.call(env.viewer(), 'exportHexDump', grant, { range: [19, 30] })).toMatchObject({ ok: false, code: 'forbidden' });
  });

  it('needs a live grant of the calling window', async () => {
    const grant = await approve(env);
    expect(await env.call(env.viewer(2), 'exportHexDump', grant, {})).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await env.call(env.viewer(), 'exportHexDump', 'g-' + '0'.repeat(32), {})).toMatchObject({ ok: false, code: 'no-grant' });
    expect(await env.call(env.viewer(), 'exportHexDump', grant, { range: [5, 5] })).toMatchObject({ ok: false, code: 'bad-request' });
    await env.ok(env.viewer(), 'revokeGrant', grant);
    expect(await env.call(env.viewer(), 'exportHexDump', grant, {})).toMatchObject({ ok: false, code: 'no-grant' });
    expect(await exported()).toEqual([]);
  });

  it('the dump of a payload is notation, never the payload bytes as text a terminal would act on', async () => {
    const grant = await approve(env);
    const r = await env.ok<{ name: string }>(env.viewer(), 'exportHexDump', grant, {});
    const text = await readFile(join(env.dir, r.name), 'utf8');
    // The marker shows in the caret column as printable ASCII (it is text inside the OSC payload),
    // but the ESC and BEL around it only as ^[ and ^G.
    expect(text).toContain('^[]52;c;');
    expect(text).toContain('^G');
    expect(text).not.toContain('\x1b');
    void MARKER;
  });
});

describe('copyText', () => {
  it('refuses an empty text: nothing on the clipboard, no text.copied entry', async () => {
    const r = await env.call(env.viewer(), 'copyText', 'text', '');
    expect(r).toMatchObject({ ok: false, code: 'bad-request' });
    expect(await env.actions()).not.toContain('text.copied');
  });
});
