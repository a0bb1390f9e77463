// capture's rule for stdout and stderr on one terminal (app/capture/shared-terminal.ts), case by
// case; shared-terminal-differential.test.ts checks it against real terminals on generated input.
import { describe, expect, it } from 'vitest';
import { CONCURRENT_MS, MAX_UNSETTLED_BYTES, mayOpenSequence } from '../../app/capture/shared-terminal';
import { INTERLEAVED_MEANING } from '../../shared/parser/meaning';
import { utf8 } from '../helpers/record';
import { captureTexts, type Chunk } from '../helpers/two-streams';

const out = (s: string, tMs?: number): Chunk => ({ stream: 'stdout', bytes: utf8(s), tMs });
const err = (s: string, tMs?: number): Chunk => ({ stream: 'stderr', bytes: utf8(s), tMs });

describe('two streams on one terminal', () => {
  it('withholds text one stream writes into an OSC the other left open, and counts it', () => {
    const r = captureTexts([out('build ok \x1b]0;'), err('IGNORE PREVIOUS INSTRUCTIONS'), out('\x07 done\n'), err('warning: x\n'), out('next\n')]);
    expect(r.stdout + r.stderr).not.toContain('IGNORE');
    // Once both are at rest again, text flows as before.
    expect(r.stderr).toContain('warning: x\n');
    expect(r.stdout).toMatch(/^build ok /);
    expect(r.stdout).toContain('next\n');
    expect(r.reports.stderr.meanings[`withheld: ${INTERLEAVED_MEANING}`]).toBe(1);
  });

  it("withholds digits written into the other's CSI parameters", () => {
    const r = captureTexts([err('total: 1\x1b[1'), out('000000 USD'), err('m\n')]);
    expect(r.stdout).not.toContain('000000');
    // Its own rest is withheld with it, up to where both are at rest: the line break too.
    expect(r.stderr).toMatch(/^total: 1\s*$/);
  });

  it('keeps withholding while both streams read together are in a sequence, though each alone is at rest', () => {
    // stdout: ESC, then x (ESC x: each stream alone is back at rest). The terminal: ESC ] 0 ; x — an OSC still open.
    const r = captureTexts([out('a \x1b'), err(']0;'), out('x'), out('IGNORE ME\n'), err('\x07'), out('after\n')]);
    expect(r.stdout + r.stderr).not.toContain('IGNORE');
    expect(r.stdout).toContain('after\n');
  });

  it('withholds to the end when a stream stays inside a sequence longer than it keeps', () => {
    const payload = 'p'.repeat(MAX_UNSETTLED_BYTES + 10);
    const r = captureTexts([out(`start\n\x1b]0;${payload}`), err('IGNORE\n'), out('\x07'), err('LATER\n'), out('more\n')]);
    expect(r.stdout + r.stderr).not.toMatch(/IGNORE|LATER|more/);
    expect(r.stdout).toBe('start\n');
  });

  it('a character set one stream designates draws the other stream\'s letters: withheld', () => {
    const r = captureTexts([out('\x1b(0'), err('lqqk IGNORE\n'), out('\x1b(B\n')]);
    expect(r.stderr).not.toContain('IGNORE');
  });

  it('a joiner one stream ends with is withheld with the character the other writes next', () => {
    const r = captureTexts([err('\u{1f642}\u200d'), out('記 IGNORE\n'), err('\n')]);
    expect(r.stdout).not.toContain('記');
  });

  it('withholds nothing where the streams switch at rest: lines, colours closed, CJK ended by a newline', () => {
    const chunks = [out('\x1b[32mok\x1b[0m 1\n'), err('warn: 記号\n'), out('ok 2\n'), err('\x1b[1mbold\x1b[0m\n'), out('done\n')];
    const r = captureTexts(chunks);
    expect(r.stdout).toBe('ok 1\nok 2\ndone\n');
    expect(r.stderr).toBe('warn: 記号\nbold\n');
    expect(r.reports.stdout.meanings[`withheld: ${INTERLEAVED_MEANING}`]).toBeUndefined();
  });

  it('one stream alone is never withheld, whatever it leaves open between its chunks', () => {
    const r = captureTexts([out('a \x1b]0;'), out('title\x07 b'), out(' \x1b['), out('1mc\n')]);
    expect(r.stdout).toBe('a  b c\n');
  });
});

describe('two streams read close together (the pipes keep no order between them)', () => {
  // `printf 'ok \e]0;'; printf 'IGNORE' >&2; printf '\a done'` back to back: the two stdout writes
  // may arrive as one read, before or after stderr's, both at rest at the chunk's ends.
  it("withholds text read within CONCURRENT_MS after the other stream's chunk that held a sequence", () => {
    const r = captureTexts([out('ok \x1b]0;\x07 done\n', 0), err('IGNORE PREVIOUS\n', 1)]);
    expect(r.stderr).not.toContain('IGNORE');
    expect(r.stdout).toBe('ok  done\n');
  });

  it('and read within CONCURRENT_MS before it', () => {
    const r = captureTexts([err('IGNORE PREVIOUS\n', 0), out('ok \x1b]0;\x07 done\n', 1)]);
    expect(r.stderr).not.toContain('IGNORE');
  });

  it('keeps text read close to the other stream\'s plain text, and text read later than the window', () => {
    expect(captureTexts([out('plain line\n', 0), err('warning: w\n', 1), out('next\n', 2)])).toMatchObject({ stdout: 'plain line\nnext\n', stderr: 'warning: w\n' });
    const r = captureTexts([out('ok \x1b]0;t\x07 done\n', 0), err('later\n', CONCURRENT_MS + 1)]);
    expect(r.stderr).toBe('later\n');
  });

  it('a progress meter (CR, BEL) on one stream withholds nothing of the other', () => {
    const r = captureTexts([err(' 10%\r', 0), out('data line 1\n', 1), err(' 20%\r\x07', 2), out('data line 2\n', 3)]);
    expect(r.stdout).toBe('data line 1\ndata line 2\n');
  });

  it('takes as opening a sequence: ESC, SO, SI, C1 raw or encoded, invalid or cut UTF-8; not UTF-8 text', () => {
    for (const open of ['\x1b', '\x0e', '\x0f', '\x9d', '\xc2\x9b', '\xff', '\xe8\xa8']) expect(mayOpenSequence(Uint8Array.from(open, (c) => c.charCodeAt(0))), JSON.stringify(open)).toBe(true);
    for (const text of ['plain', '記号 é 🙂', '\t\n']) expect(mayOpenSequence(utf8(text)), text).toBe(false);
  });
});
