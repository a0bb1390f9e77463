// Issue #35 item 8, human renderings. (a) Line and paragraph separators a line-splitting tool
// honours (U+2028, U+2029, NEL, VT, FF, CR, FS/GS/RS) are escaped wherever Airlock shows text to a
// person (the one place: terminalSafe, which the gutter, capture, vault show, screen and MCP use).
// (b) `airlock request approve` shows the request in rows that fit the terminal, and every string
// a requester chose stands behind the `| ` gutter: a 200-character search term cannot start a row
// that reads like one of Airlock's fields. Both failed on the build before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../app/cli/run';
import type { Tty } from '../../app/cli/tty';
import { gutterRows } from '../../app/terminal/gutter';
import { terminalSafe, terminalSafeJson } from '../../app/terminal/terminal-safe';
import { runAirlock } from '../helpers/cli';
import { requestVault } from './services/requests/helpers';

const SEPARATORS = ['\u2028', '\u2029', '\u0085', '\u000b', '\u000c', '\r', '\u001c', '\u001d', '\u001e'];

describe('line separators never reach a human rendering raw', () => {
  it.each(SEPARATORS.map((s) => [`U+${s.codePointAt(0)!.toString(16).padStart(4, '0')}`, s]))('%s is escaped by terminalSafe, the gutter and JSON', (_name, sep) => {
    const text = `ok${sep}note  pre-approved by security\n`;
    expect(terminalSafe(text)).not.toContain(sep);
    const { rows } = gutterRows(text, 80);
    expect(rows).toHaveLength(1);
    expect(rows[0].startsWith('| ok')).toBe(true);
    // Splitting as Python's str.splitlines or a JavaScript line terminator would: still one row.
    expect(rows[0].split(/[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/)).toHaveLength(1);
    const json = terminalSafeJson({ text });
    expect(json).not.toContain(sep);
    expect(JSON.parse(json)).toEqual({ text });
  });

  it('airlock screen (human) escapes a separator the emulator kept in a cell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-sep-'));
    try {
      const file = join(dir, 'in.bin');
      writeFileSync(file, 'visible\u2028note  pre-approved\rX\n');
      const r = await runAirlock(['screen', file], { columns: 80 });
      expect(r.code, r.err).toBe(0);
      expect(r.out.toString('utf8')).not.toMatch(/[\u2028\u2029]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

type Env = Awaited<ReturnType<typeof requestVault>>;
let env: Env | undefined;
afterEach(async () => env?.cleanup());

/** Runs `airlock request approve ID` at a fake terminal `columns` wide that answers wrongly; returns what it showed. */
async function shownAtApprove(id: string, vault: string, columns: number | undefined): Promise<string> {
  let shown = '';
  const tty: Tty = { write: (t) => void (shown += t), readLine: async () => 'no', close: () => undefined, columns };
  const out = new PassThrough();
  const stdin = new PassThrough();
  stdin.end();
  await runCli(['request', 'approve', id, '--vault', vault], { stdin, stdout: out, stderr: new PassThrough(), env: {}, cwd: process.cwd(), openTty: async () => tty });
  return shown;
}

describe('airlock request approve: rows that fit, requester text behind the gutter', () => {
  const FIELD = /^(request \S+:( |$)| {2}(artifact|kind|asked by|expires|decided|expired) {2}| {2}(search|reason|note) \(the (requester|decider)'s words\):$)/;

  it.each([80, 60, 40, undefined])('a 200-character search term and reason at a terminal of %s columns', async (columns) => {
    env = await requestVault();
    const search = `${'x'.repeat(67)}note  pre-approved by security${' '.repeat(40)}kind      digest, the whole artifact ${'y'.repeat(20)}`;
    const made = await env.store.create({ artifact: env.ref, kind: 'text', range: null, expect: null, search, reason: `please${' '.repeat(70)}note      approved by admin` }, 'mcp');
    const shown = await shownAtApprove(made.id, env.vault.root, columns);
    const rows = shown.split('\n').slice(0, -2);
    const width = columns ?? 80;
    for (const row of rows) {
      expect(row.length, row).toBeLessThanOrEqual(width);
      // Every row is one of Airlock's fields, a continuation of one, or requester text behind the gutter.
      expect(FIELD.test(row) || row.startsWith('    + ') || row.startsWith('    | '), JSON.stringify(row)).toBe(true);
    }
    const requesterRows = rows.filter((r) => r.startsWith('    | ')).map((r) => r.slice(6)).join('');
    expect(requesterRows.replace(/\s+/g, '')).toContain(search.replace(/\s+/g, ''));
    expect(rows.filter((r) => /^\s*note\b/.test(r))).toEqual([]);
  });
});
