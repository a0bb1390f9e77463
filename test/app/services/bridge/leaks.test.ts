// Nothing raw-derived leaves main without a grant, whatever the method. An artifact whose removed
// spans all carry one marker — as tag characters (code points), invalid UTF-8 (bytes), CSI and ESC
// final bytes, OSC command numbers, variation selectors, string payloads (OSC 52, DCS, APC, PM,
// SOS) and text only one reading shows — goes through every bridge method with the arguments a
// hostile renderer would pick, and every answer (errors too) is scanned for the marker in any of
// those encodings. The table is keyed by the contract's methods: a method added later must be
// added here (the type says so, and the first test checks it), and is then scanned too. Positive
// control: under a grant, getSpanValues does hand the values out, and the scan finds them.
// The artifact also prints a credential (a fixture of the redaction stage) as plain text: the
// viewer serves it as a redaction, so its value, in any of those encodings, is scanned for too;
// under a grant getSecretValues hands it out.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANT_METHODS, VIEWER_METHODS, type ViewerMethod } from '../../../../shared/bridge/contract';
import type { RecordSummary, ScreenStatus, SpanInfo } from '../../../../shared/bridge/types';
import { parseCastHeader } from '../../../../app/services/import/asciicast';
import { parseTiming } from '../../../../app/services/import/script';
import { newRecordId } from '../../../../app/vault';
import { hostTag } from '../../../../app/vault/raw-writer';
import { loadRedaction } from '../../../../app/redact/policy';
import { redactText } from '../../../../app/redact/text';
import { Sanitizer } from '../../../../shared/sanitize';
import { approve, makeEnv, promptWindow, type Env } from './env';
// @ts-expect-error -- a plain .mjs fixture shared with the capture fixture
import { SECRETS } from '../../../fixtures/secrets/credentials.mjs';

/** A credential printed as plain text (the redaction stage's fixture): kept by the sanitizer, redacted by the viewer. */
const SECRET = (SECRETS as { rule: string; values: string[] }[]).find((s) => s.rule === 'stripe-key')!.values[0];

/** Upper-case letters: valid CSI and ESC final bytes, OSC commands 65-90, and none is kept text here. */
const MARKER = 'QZJXVKWPGY';

/** The artifact: every removed span carries MARKER; the kept text never does (in any case). */
export function leakArtifact(): Buffer {
  const codes = [...MARKER].map((c) => c.charCodeAt(0));
  const parts: (string | Buffer)[] = ['begin\n'];
  parts.push(`tags: x${codes.map((c) => String.fromCodePoint(0xe0000 + c)).join('')} y\n`);
  // A 2-byte lead with its top bits from the marker, cut by a space: one ill-formed byte each.
  parts.push('bytes:', Buffer.from(codes.flatMap((c) => [0x80 | c, 0x20])), '\n');
  parts.push(`finals: ${codes.map((c) => `\x1b[1${String.fromCharCode(c)}`).join('')}.\n`);
  parts.push(`params: ${codes.map((c) => `\x1b[${c}m`).join('')}.\n`);
  parts.push(`charsets: ${codes.map((c) => `\x1b(${String.fromCharCode(c)}`).join('')}.\n`);
  parts.push(`commands: ${codes.map((c) => `\x1b]${c};x\x07`).join('')}.\n`);
  // Variation selectors after a letter that takes none: invisible, one nibble each.
  parts.push(`nibbles: a${codes.map((c) => String.fromCodePoint(0xfe00 + (c >> 4), 0xfe00 + (c & 15))).join('')} b\n`);
  parts.push(`payloads: \x1b]52;c;${MARKER}\x07 \x1bP${MARKER}\x1b\\ \x1b_${MARKER}\x1b\\ \x1b^${MARKER}\x1b\\ \x1bX${MARKER}\x1b\\ .\n`);
  // One reading shows it (a UTF-8 terminal: U+FFFD then text), the other an OSC payload: withheld.
  parts.push('ok ', Buffer.from([0x9d]), `${MARKER}\x07 done\n`);
  parts.push(`stripe.api_key = "${SECRET}"\n`);
  parts.push('end\n');
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

/** Every string in `v`, and every number grouped by the key it is under (in traversal order), plus every array of numbers. */
function collect(v: unknown, strings: string[], byKey: Map<string, number[]>, arrays: number[][], key = ''): void {
  if (typeof v === 'string') strings.push(v);
  else if (typeof v === 'number') {
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key)!.push(v);
  } else if (v instanceof Uint8Array) arrays.push([...v]);
  else if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'number')) arrays.push(v as number[]);
    for (const x of v) collect(x, strings, byKey, arrays, key);
  } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, strings, byKey, arrays, k);
}

/** The encodings of MARKER found in `v` (empty: none). */
export function markerIn(v: unknown): string[] {
  const strings: string[] = [];
  const byKey = new Map<string, number[]>();
  const arrays: number[][] = [];
  collect(v, strings, byKey, arrays);
  const found: string[] = [];
  const text = strings.join('\n');
  const normal = text.toLowerCase().replace(/[^0-9a-z+/= ]/g, '');
  for (const [name, form] of [['secret', SECRET], ['secret (hex)', Buffer.from(SECRET).toString('hex')], ['secret (base64)', Buffer.from(SECRET).toString('base64')]] as const) {
    if (normal.includes(form.toLowerCase().replace(/[^0-9a-z+/= ]/g, ''))) found.push(name);
  }
  const hex = Buffer.from(MARKER).toString('hex');
  for (const [name, form] of [['text', MARKER], ['text (any case)', MARKER.toLowerCase()], ['hex', hex], ['spaced hex', hex.replace(/(..)(?!$)/g, '$1 ')],
    ['base64', Buffer.from(MARKER).toString('base64')], ['code points', [...MARKER].map((c) => (0xe0000 + c.charCodeAt(0)).toString(16)).join('').toLowerCase()]] as const) {
    if (text.toLowerCase().replace(/[^0-9a-z+/= ]/g, '').includes(form.toLowerCase())) found.push(name);
  }
  const sequences: [string, number[]][] = [...byKey.entries(), ...arrays.map((a, i) => [`array ${i}`, a] as [string, number[]])];
  for (const [name, seq] of sequences) {
    const low7 = String.fromCharCode(...seq.map((x) => x & 0x7f));
    // Two numbers a byte (high nibble first), from either parity.
    const nibbles = [0, 1].map((p) => String.fromCharCode(...seq.slice(p).flatMap((x, i, a) => (i % 2 === 0 && i + 1 < a.length ? [((x & 15) << 4) | (a[i + 1] & 15)] : []))));
    if (low7.includes(MARKER)) found.push(`numbers under "${name}"`);
    if (nibbles.some((n) => n.includes(MARKER))) found.push(`nibbles under "${name}"`);
  }
  return found;
}

describe('no raw-derived value leaves main without a grant', () => {
  let env: Env;
  let ref = '';
  let size = 0;
  let recordId = '';
  /** A running capture whose stdout is the artifact: its raw temp file, its sanitized text and chunk row as a capture writes them. */
  let runningId = '';
  const answers: { method: string; value: unknown }[] = [];
  const call = async (method: string, ...args: unknown[]): Promise<unknown> => {
    const wire = await env.call(env.viewer(), method, ...args);
    answers.push({ method, value: wire });
    return wire.ok ? wire.value : wire;
  };

  beforeAll(async () => {
    env = await makeEnv();
    const file = join(env.dir, 'leak.log');
    const bytes = leakArtifact();
    size = bytes.length;
    await writeFile(file, bytes);
    env.setNextOpenFile(file);
    const rec = (await call('openFile')) as RecordSummary;
    ref = rec.artifacts[0].ref;
    recordId = rec.id;
    await call('startIndex', ref);
    for (let i = 0; i < 400 && ((await env.ok<{ state: string }>(env.viewer(), 'getIndexStatus', ref)).state !== 'done'); i++) await new Promise((r) => setTimeout(r, 25));
    const vault = env.services.vault;
    runningId = newRecordId(new Date());
    // Named as the capture's own process names its temp files (the owner in meta.json: this process).
    const temp = `raw-${process.pid}-${hostTag()}-${'ab'.repeat(8)}.part`;
    await writeFile(join(vault.layout.tmpDir, temp), bytes, { mode: 0o600 });
    await chmod(join(vault.layout.tmpDir, temp), 0o600);
    // Its text as a capture stores it: sanitized, then through the redaction stage.
    const s = new Sanitizer();
    const sanitized = Buffer.concat([s.write(bytes), s.end()]).toString('utf8');
    const text = Buffer.from(redactText(sanitized, (await loadRedaction(vault.root)).policy).text, 'utf8');
    const writer = await vault.startRunning(runningId, ['stdout', 'stderr'], { command: 'leak', cwd: env.dir, redaction: { mode: 'on' } });
    writer.line(['raw', { stdout: temp, stderr: null }]);
    writer.text('stdout', text);
    writer.line(['c', 0, 0, 'stdout', 0, size, 0, text.length, 1, 0, text.length, 0]);
    await writer.close();
  }, 60_000);
  afterAll(async () => {
    await env.close();
  });

  /** What a hostile renderer calls, per method: every argument it can pick that reaches the artifact. */
  const attacks: Record<ViewerMethod, () => Promise<void>> = {
    getVaultInfo: async () => void (await call('getVaultInfo')),
    listRecords: async () => void (await call('listRecords')),
    openFile: async () => void (await call('openFile')),
    startIndex: async () => void (await call('startIndex', ref)),
    getIndexStatus: async () => void (await call('getIndexStatus', ref)),
    cancelIndex: async () => void (await call('cancelIndex', ref)),
    getReport: async () => void (await call('getReport', ref)),
    listRunning: async () => void (await call('listRunning')),
    followRunning: async () => {
      // Until its scan has counted every byte, from every text offset, at the coarsest and finest minimap.
      let u: { scannedBytes?: number; text?: string; removal?: { removedSpans: number } } = {};
      for (let i = 0; i < 400 && u.scannedBytes !== size; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 25));
        u = (await call('followRunning', runningId, 'stdout', 0, 4096)) as typeof u;
      }
      // The answers scanned below carry the text and the counts of every removed span.
      expect(u.scannedBytes).toBe(size);
      expect(u.text).toContain('payloads:');
      expect(u.removal!.removedSpans).toBeGreaterThan(50);
      for (let from = 0; from < 40; from++) await call('followRunning', runningId, 'stdout', from, 1);
      await call('followRunning', runningId, 'stderr', 0, 4096);
    },
    getRunningScreen: async () => {
      for (let i = 0; i < 600; i++) {
        const st = (await call('getRunningScreen', runningId, 'stdout', { cols: 80, rows: 24 }, i === 0 ? null : size)) as ScreenStatus;
        if (!('state' in st) || st.state !== 'running') {
          expect(st.state).toBe('done');
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await call('getRunningScreen', runningId, 'stdout', { cols: 2, rows: 1 }, null);
    },
    cancelRunningScreen: async () => void (await call('cancelRunningScreen', runningId, 'stdout', { cols: 2, rows: 1 }, size)),
    getSpans: async () => {
      for (const [a, n] of [[0, size], [0, 1], [size - 1, 1], [Math.floor(size / 2), 7]]) await call('getSpans', ref, a, n);
    },
    findSpan: async () => {
      // Walk every span both ways, unfiltered and by class.
      for (const filter of [{}, ...Array.from({ length: 12 }, (_, cls) => ({ cls }))]) {
        for (let from = 0, guard = 0; guard < 200; guard++) {
          const s = (await call('findSpan', ref, from, 1, filter)) as SpanInfo | null;
          if (!s || !('offset' in s)) break;
          from = s.offset + 1;
        }
        await call('findSpan', ref, size, -1, filter);
      }
      await call('findSpan', ref, 0, 1, { meaning: 'tag character (ASCII smuggling)' });
    },
    getMinimap: async () => void (await call('getMinimap', ref, 4096)),
    getTextLines: async () => {
      await call('getTextLines', ref, 0, 2000);
      for (let l = 0; l < 20; l++) await call('getTextLines', ref, l, 1);
    },
    getSecrets: async () => {
      for (const [a, n] of [[0, size], [0, 1], [size - 1, 1], [Math.floor(size / 2), 7]]) await call('getSecrets', ref, a, n);
    },
    textPositionOf: async () => {
      for (let o = 0; o < size; o++) await call('textPositionOf', ref, o);
    },
    searchText: async () => {
      // The secret's value and parts of it: a hit would tell a guess of it is right.
      for (const q of [MARKER, MARKER.toLowerCase(), MARKER.slice(0, 3), 'Q', 'ÄQZJ', SECRET, SECRET.slice(0, 12), SECRET.slice(-10), SECRET.toUpperCase()]) {
        for (const caseSensitive of [true, false]) {
          const hits = (await call('searchText', ref, q, { caseSensitive })) as { total: number };
          // The sanitized text never holds the marker: a hit would be removed text searched.
          if (q.length > 1) expect(hits.total, q).toBe(0);
        }
      }
    },
    cancelSearch: async () => void (await call('cancelSearch')),
    getScreen: async () => {
      for (let i = 0; i < 600; i++) {
        const st = (await call('getScreen', ref, { cols: 80, rows: 24 })) as ScreenStatus;
        if (!('state' in st)) break; // an answer that is the view itself (a build before screen jobs)
        if (st.state !== 'running') {
          expect(st.state).toBe('done');
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await call('getScreen', ref, { cols: 2, rows: 1 });
    },
    cancelScreen: async () => void (await call('cancelScreen', ref, { cols: 2, rows: 1 })),
    getChunkLog: async () => void (await call('getChunkLog', recordId)),
    requestRawAccess: async () => {
      const asked = call('requestRawAccess', ref, { reason: 'show me' });
      const pw = await promptWindow(env);
      const view = await env.ok(env.prompt(pw), 'getPrompt');
      answers.push({ method: 'getPrompt (prompt window)', value: view });
      await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'deny', reason: 'no', confirm: '' });
      await asked;
    },
    requestRunningRawAccess: async () => {
      // The prompt for a running capture's stream shows its title, stream and size: nothing raw.
      const asked = call('requestRunningRawAccess', runningId, 'stdout', { reason: 'show me' });
      const pw = await promptWindow(env);
      const view = await env.ok(env.prompt(pw), 'getPrompt');
      answers.push({ method: 'getPrompt (prompt window, running)', value: view });
      await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'deny', reason: 'no', confirm: '' });
      await asked;
      // Ids and streams it does not have: refused without a prompt.
      await call('requestRunningRawAccess', runningId, 'stdin', {});
      await call('requestRunningRawAccess', recordId, 'stdout', {});
    },
    listGrants: async () => void (await call('listGrants')),
    revokeGrant: async () => void (await call('revokeGrant', `g-${'0'.repeat(32)}`)),
    readRaw: async () => void (await call('readRaw', `g-${'1'.repeat(32)}`, 0, 16)),
    readRunningRaw: async () => {
      // A forged grant id, and a grant on the sealed artifact (the other kind): nothing read.
      await call('readRunningRaw', `g-${'7'.repeat(32)}`, 0, size);
      const sealedGrant = await approve(env, 2, ref);
      answers.push({ method: 'readRunningRaw (sealed-artifact grant)', value: await env.call(env.viewer(2), 'readRunningRaw', sealedGrant, 0, size) });
      await env.ok(env.viewer(2), 'revokeGrant', sealedGrant);
    },
    getSpanValues: async () => void (await call('getSpanValues', `g-${'2'.repeat(32)}`, 0, size)),
    getPayloads: async () => void (await call('getPayloads', `g-${'6'.repeat(32)}`, 0, size)),
    getSecretValues: async () => void (await call('getSecretValues', `g-${'5'.repeat(32)}`, 0, size)),
    searchRaw: async () => void (await call('searchRaw', `g-${'3'.repeat(32)}`, { mode: 'text', pattern: 'Q' })),
    listBookmarks: async () => void (await call('listBookmarks', ref)),
    saveBookmark: async () => void (await call('saveBookmark', ref, { offset: 6, length: 40, note: 'look' })),
    deleteBookmark: async () => void (await call('deleteBookmark', ref, `b-${'0'.repeat(16)}`)),
    copyText: async () => void (await call('copyText', 'text', 'plain')),
    exportText: async () => void (await call('exportText', 'hex-dump', 'x.txt', 'plain')),
    exportHexDump: async () => {
      // A forged grant id, then a real window's call without one: no dump is written, nothing answered.
      await call('exportHexDump', `g-${'4'.repeat(32)}`, {});
      await call('exportHexDump', `g-${'4'.repeat(32)}`, { range: [0, size] });
    },
    listAudit: async () => void (await call('listAudit', 10_000)),
    listRequests: async () => void (await call('listRequests')),
    reviewRequest: async () => void (await call('reviewRequest', 'req-20260101T000000Z-00000000', 'deny', 'no')),
  };

  it('the table names every method of the contract', () => {
    expect(Object.keys(attacks).sort()).toEqual([...VIEWER_METHODS].sort());
  });

  it('the artifact carries the marker in every removed span kind (the scan would see it)', async () => {
    const svc = env.services.artifact!;
    const values = await svc.spanValues(ref, 0, size, [0, size]);
    const found = markerIn(values);
    expect(found).toContain('numbers under "code"');
    expect(found).toContain('nibbles under "code"');
  });

  for (const m of VIEWER_METHODS) {
    it(`${m}: no answer, error or prompt view carries the marker`, async () => {
      const from = answers.length;
      await attacks[m]();
      // Each answer, and all of them in order (a value per call adds up: findSpan walked span by span).
      const mine = answers.slice(from);
      for (const a of mine) expect(markerIn(a.value), `${a.method}: ${JSON.stringify(a.value).slice(0, 300)}`).toEqual([]);
      expect(markerIn(mine.map((a) => a.value)), `${m}, all answers together`).toEqual([]);
      if (GRANT_METHODS.has(m)) expect(answers.slice(from).every((a) => (a.value as { ok: boolean }).ok === false)).toBe(true);
    }, 60_000);
  }

  it('an import that fails says where, never what the file holds (its error reaches the renderer)', () => {
    expect(() => parseCastHeader(`{"version": "${MARKER}"}`)).toThrow(/^asciicast: unsupported version \(2 and 3 are read\)$/);
    expect(() => parseTiming(`0.5 12\n${MARKER} 1\n`)).toThrow(/^timing file: cannot read line 2$/);
  });

  it('the viewer redacts the secret: its text lines carry a secret piece, never the value', async () => {
    const page = await env.ok<{ lines: { pieces: { t: string; secret?: { rule: string } }[] }[] }>(env.viewer(), 'getTextLines', ref, 0, 100);
    const pieces = page.lines.flatMap((l) => l.pieces).filter((p) => p.t === 'secret');
    expect(pieces.map((p) => p.secret!.rule)).toEqual(['stripe-key']);
    expect(markerIn(page)).toEqual([]);
  });

  it('under a grant, getSecretValues hands the secret out (and the scan finds it); another window\'s grant gives nothing', async () => {
    const grant = await approve(env, 2, ref);
    const values = await env.ok<{ value: string }[]>(env.viewer(2), 'getSecretValues', grant, 0, size);
    expect(values.map((v) => v.value)).toEqual([SECRET]);
    expect(markerIn(values)).toContain('secret');
    expect(await env.call(env.viewer(1), 'getSecretValues', grant, 0, size)).toMatchObject({ ok: false, code: 'forbidden' });
    // A grant over bytes before the secret gives nothing.
    const before = await approve(env, 2, ref, [0, 20]);
    expect(await env.ok(env.viewer(2), 'getSecretValues', before, 0, size)).toEqual([]);
  }, 60_000);

  it('under a grant on the running capture\'s stream, readRunningRaw hands its bytes out (and the scan finds them); another window\'s call gives nothing', async () => {
    const asked = env.ok<{ state: string; grant?: { id: string } }>(env.viewer(2), 'requestRunningRawAccess', runningId, 'stdout', {});
    const pw = await promptWindow(env);
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'incident 42 review', confirm: runningId.slice(-8) });
    const grant = (await asked).grant!.id;
    const page = await env.ok<{ bytes: Uint8Array; size: number }>(env.viewer(2), 'readRunningRaw', grant, 0, size);
    expect(page.size).toBe(size);
    expect(markerIn(page)).toContain('numbers under "array 0"');
    expect(await env.call(env.viewer(1), 'readRunningRaw', grant, 0, size)).toMatchObject({ ok: false, code: 'forbidden' });
    await env.ok(env.viewer(2), 'revokeGrant', grant);
  }, 60_000);

  it('under a grant, getSpanValues hands the values out (and the scan finds them)', async () => {
    const grant = await approve(env, 2, ref);
    const values = await env.ok(env.viewer(2), 'getSpanValues', grant, 0, size);
    expect(markerIn(values)).toContain('numbers under "code"');
    // Only inside the granted range: a ranged grant gets the values of the spans wholly inside it.
    const ranged = await approve(env, 2, ref, [0, 20]);
    const some = await env.ok<{ offset: number }[]>(env.viewer(2), 'getSpanValues', ranged, 0, size);
    expect(some.every((v) => v.offset < 20)).toBe(true);
    expect(markerIn(some)).toEqual([]);
    // Another window's grant gives nothing.
    expect(await env.call(env.viewer(1), 'getSpanValues', grant, 0, size)).toMatchObject({ ok: false, code: 'forbidden' });
  }, 60_000);
});
