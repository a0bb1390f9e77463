/**
 * The screen engine cuts the counts xterm.js carries out one unit at a time (scroll, insert and
 * delete lines, tab steps, REP) to what leaves the same screen: a dozen bytes with a count of
 * 2^31 - 1 held `airlock screen` and the MCP server's `screen` tool for hours.
 */
import xterm from '@xterm/headless';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundCounts, boundedRepeat } from '../../app/services/screen/counts';
import { reconstructScreen } from '../../app/services/screen/engine';
import { screenViewOf } from '../../app/services/screen/view';
import { bytes, utf8 } from '../helpers/record';

const { Terminal } = xterm;
type TerminalT = InstanceType<typeof Terminal>;

const FINALS = ['S', 'T', 'L', 'M', 'I', 'Z', 'b'];

function write(term: TerminalT, data: Uint8Array): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/** The visible screen, cell by cell, and the cursor. */
function screenOf(term: TerminalT): string {
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < term.rows; y++) lines.push(buf.getLine(buf.viewportY + y)?.translateToString(false) ?? '');
  return `${lines.join('|')} @${buf.cursorX},${buf.cursorY}`;
}

describe('screen engine: counts xterm.js carries out one by one are cut to the same screen', () => {
  it.each(FINALS)('CSI 2147483647 %s: the engine ends and reports what it saw', (final) => {
    const input = bytes('ok line\r\nQ', `\x1b[2147483647${final}`, 'done\r\n');
    const report = reconstructScreen(input, { cols: 80, rows: 24 });
    expect(report.layoutVerified).toBe(true);
    expect(report.counts.printed).toBe('ok lineQdone'.length);
    // The same through the view the MCP `screen` tool and the desktop use.
    expect(screenViewOf(input, 80, 24).counts.printed).toBe('ok lineQdone'.length);
  }, 60_000);

  it('many huge counts in one small input', () => {
    const input = bytes(...Array.from({ length: 50 }, (_, i) => `x${i}\x1b[2147483647${FINALS[i % FINALS.length]}`));
    const report = reconstructScreen(input, { cols: 80, rows: 24 });
    expect(report.counts.printed).toBeGreaterThan(0);
  }, 60_000);

  it('boundedRepeat keeps counts up to a full screen and a period, and the residue past them', () => {
    expect(boundedRepeat(5, 80, 24)).toBe(5);
    const limit = 80 * 24 + 80 * 79;
    expect(boundedRepeat(limit, 80, 24)).toBe(limit);
    fc.assert(fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 100 }), (n, cols, rows) => {
      const m = boundedRepeat(n, cols, rows);
      expect(m).toBeLessThanOrEqual(n);
      if (m < n) {
        expect(m).toBeGreaterThanOrEqual(cols * rows);
        expect((n - m) % (cols * Math.max(cols - 1, 1))).toBe(0);
      }
    }));
  });

  it('property: with the counts cut, xterm.js draws the same screen and cursor as with the full count', async () => {
    const setup = fc.constantFrom('', '\x1b[2;3r', '\x1b[?7l', '\x1b[4h', '\x1b[3g\x1b[1;4H\x1bH', '\x1b[?6h', '\x1b[?1049h');
    const text = fc.array(fc.constantFrom('ab', '記', 'é', 'x\u0301', '🙂', '\r\n', '\x1b[2;2H', '\x1b[H', 'Zz'), { maxLength: 6 }).map((a) => a.join(''));
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 2, max: 9 }), fc.integer({ min: 2, max: 5 }), setup, text, fc.constantFrom(...FINALS),
      fc.integer({ min: 0, max: 400 }), text,
      async (cols, rows, pre, before, final, count, after) => {
        const input = utf8(`${pre}${before}\x1b[${count}${final}${after}`);
        const plain = new Terminal({ cols, rows, scrollback: 100, allowProposedApi: true, convertEol: true });
        const cut = new Terminal({ cols, rows, scrollback: 100, allowProposedApi: true, convertEol: true });
        boundCounts(cut, cols, rows);
        await write(plain, input);
        await write(cut, input);
        expect(screenOf(cut), JSON.stringify({ cols, rows, input: new TextDecoder().decode(input) })).toBe(screenOf(plain));
        plain.dispose();
        cut.dispose();
      },
    ), { seed: 0x5c4ee, numRuns: 400 });
  }, 120_000);
});
