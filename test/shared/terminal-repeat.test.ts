/**
 * REP (`CSI n b`) against real terminals: the copies Airlock writes into the text are the copies
 * tmux, libvterm and xterm.js all draw — whatever the count, its leading zeros, the other
 * parameters and their bytes (tmux drops a CSI past 63 parameter bytes or with a value over
 * INT_MAX; the others repeat). Where they may differ Airlock writes a space instead. At most 16
 * parameters: libvterm 0.1.4 crashes on more. The terminals read only what Airlock repeats
 * (xterm.js builds every copy of a count: 2^31 of them do not fit in memory). Cases: AIRLOCK_TERMINAL_CASES / 10 (default 250).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitize } from '../../shared/sanitize/sanitizer';
import { bytes, decodeStrict, hex } from '../helpers/record';
import { libvtermAvailable } from '../helpers/terminals/libvterm';
import { TerminalReadings } from '../helpers/terminals/readings';
import { tmuxAvailable } from '../helpers/terminals/tmux';

const SEED = 0x4e9b;
const CASES = Math.ceil(Number(process.env.AIRLOCK_TERMINAL_CASES ?? 2500) / 10);
const available = tmuxAvailable() && libvtermAvailable();
if (!available && process.env.CI) throw new Error('tmux and libvterm-bin must be installed (see .ci/run)');

interface Case { raw: Uint8Array; digit: string; count: number }

/** Counts xterm.js can build the copies of (it allocates them all at once). */
const READABLE = 1_000_000;

const caseArb: fc.Arbitrary<Case> = fc.record({
  digit: fc.constantFrom('0', '7', 'x'),
  count: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constantFrom(79, 80, 81, 150, 99_999, 2_147_483_647, 2_147_483_648, 3_000_000_000)),
  zeros: fc.oneof(fc.constant(0), fc.integer({ min: 40, max: 70 })),
  more: fc.array(fc.constantFrom('', '1', '0', '22', '1:2'), { maxLength: 15 }),
}).map(({ digit, count, zeros, more }) => ({
  digit,
  count,
  raw: bytes(`Q${digit}\x1b[${'0'.repeat(zeros)}${count}${more.map((m) => `;${m}`).join('')}bZ`),
}));

describe.skipIf(!available)('REP: the copies Airlock writes are drawn by every terminal', () => {
  let readings: TerminalReadings;
  beforeAll(async () => {
    readings = new TerminalReadings(120, 10);
    // Only where Airlock writes copies: xterm.js builds every copy of a count it is given (2^31 of
    // them do not fit in memory), and where Airlock writes a space there is nothing to compare.
    const repeats = fc.sample(caseArb, { seed: SEED, numRuns: CASES }).filter((c) => c.count <= READABLE && !/^Q. Z$/.test(decodeStrict(sanitize(c.raw).text)));
    await readings.prepare(repeats.map((c) => c.raw));
  }, 600_000);
  afterAll(() => readings?.close());

  it(`${CASES} generated cases`, async () => {
    let repeated = 0;
    let spaced = 0;
    await fc.assert(fc.asyncProperty(caseArb, async ({ raw, digit, count }) => {
      const text = decodeStrict(sanitize(raw).text);
      // The character and its copies, then a space where some copies are not written (too many to
      // write, or not every reading repeats alike).
      const m = new RegExp(`^Q(${digit}+)( ?)Z$`).exec(text);
      expect(m, `${hex(raw)}: airlock ${JSON.stringify(text)}`).not.toBeNull();
      const [, copies, rest] = m as RegExpExecArray;
      if (copies.length === 1 && rest === ' ') {
        spaced++;
        return;
      }
      // Past what xterm.js can be given: tmux drops a count over INT_MAX, and Airlock cannot tell
      // (its values saturate), so it must not write copies of such a count.
      expect(count <= READABLE, `${hex(raw)}: copies of ${count} written: ${JSON.stringify(text)}`).toBe(true);
      repeated++;
      const seen = await readings.of(raw);
      const shown = `Q${copies}${rest === '' ? 'Z' : ''}`;
      for (const t of [seen.tmux, seen.vtermScreen ?? shown, seen.xterm]) {
        expect(t.replace(/\n/g, ''), `${hex(raw)}: airlock ${JSON.stringify(text)}; ${JSON.stringify(seen)}`).toContain(shown);
      }
    }), { seed: SEED, numRuns: CASES, endOnFailure: true });
    expect(repeated).toBeGreaterThan(CASES / 5);
    expect(spaced).toBeGreaterThan(CASES / 10);
  }, 600_000);
});
