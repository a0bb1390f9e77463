/**
 * The reading rule for two streams on one terminal, checked against real terminals: stdout and
 * stderr are each sanitized by their own Sanitizer (as capture does), with capture's SharedTerminal
 * rule deciding which chunks' text is withheld; a terminal reads the chunks in arrival order. A
 * marker either stream's text releases must be printed by every reading (tmux, libvterm, xterm.js,
 * 8-bit) of the interleaved bytes. The streams are made of the one-stream generator's parts (byte
 * classes in every parser state, markers), cut into chunks at random and interleaved at random.
 * Cases: AIRLOCK_TERMINAL_CASES / 5 (default 500).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes, hex, splitAt } from '../helpers/record';
import { captureTexts, type Chunk } from '../helpers/two-streams';
import { caseArb, optionsArb, prints, READING_NAMES, type Case } from '../helpers/terminals/cases';
import { libvtermAvailable } from '../helpers/terminals/libvterm';
import { TerminalReadings } from '../helpers/terminals/readings';
import { tmuxAvailable } from '../helpers/terminals/tmux';

const SEED = 0x5a7e2;
const CASES = Math.max(50, Math.floor(Number(process.env.AIRLOCK_TERMINAL_CASES ?? 2500) / 5));
const available = tmuxAvailable() && libvtermAvailable();
if (!available && process.env.CI) throw new Error('tmux and libvterm-bin must be installed (see .ci/run)');

interface TwoStreams { readonly chunks: readonly Chunk[]; readonly markers: readonly string[] }

/**
 * Cuts `raw` at up to four random places, never inside a marker: the terminal prints a marker cut
 * by the other stream's text in two pieces, which says nothing of whether it hides it.
 */
function cut(raw: Uint8Array, markers: readonly string[], at: readonly number[]): Uint8Array[] {
  const inside = new Set<number>();
  const hexRaw = Buffer.from(raw).toString('hex');
  for (const m of markers) {
    const mh = Buffer.from(m, 'utf8').toString('hex');
    for (let k = hexRaw.indexOf(mh); k >= 0; k = hexRaw.indexOf(mh, k + 2)) {
      if (k % 2 !== 0) continue;
      for (let b = k / 2 + 1; b < k / 2 + mh.length / 2; b++) inside.add(b);
    }
  }
  const points = at.map((p) => p % (raw.length + 1)).filter((p) => !inside.has(p));
  return splitAt(raw, points).filter((c) => c.length > 0);
}

/** Two streams' chunks, interleaved in an order the choices pick (each stream's own order kept). */
const twoStreamsArb: fc.Arbitrary<TwoStreams> = fc.tuple(caseArb, caseArb, fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }))
  .map(([out, err, outCuts, errCuts, picks]: [Case, Case, number[], number[], boolean[]]) => {
    const a = cut(out.raw, out.markers, outCuts);
    const b = cut(err.raw, err.markers, errCuts);
    const chunks: Chunk[] = [];
    let i = 0;
    let j = 0;
    for (let k = 0; i < a.length || j < b.length; k++) {
      const takeOut = j >= b.length || (i < a.length && picks[k % picks.length]);
      if (takeOut) chunks.push({ stream: 'stdout', bytes: a[i++] });
      else chunks.push({ stream: 'stderr', bytes: b[j++] });
    }
    return { chunks, markers: [...out.markers, ...err.markers] };
  });

const arrival = (chunks: readonly Chunk[]): Uint8Array => bytes(...chunks.map((c) => c.bytes));

let readings: TerminalReadings;

describe.skipIf(!available)('two streams on one terminal: every terminal prints what capture releases of either', () => {
  beforeAll(async () => {
    readings = new TerminalReadings();
    await readings.prepare(fc.sample(twoStreamsArb, { seed: SEED, numRuns: CASES }).map((c) => arrival(c.chunks)));
  }, 600_000);
  afterAll(() => readings?.close());

  it(`${CASES} generated interleavings: every released marker is printed by every reading`, async () => {
    let released = 0;
    let withheld = 0;
    await fc.assert(fc.asyncProperty(twoStreamsArb, optionsArb, async ({ chunks, markers }, options) => {
      const texts = captureTexts(chunks, options);
      const raw = arrival(chunks);
      const seen = await readings.of(raw);
      const order = chunks.map((c) => `${c.stream === 'stdout' ? 'out' : 'err'}:${hex(c.bytes)}`).join(' ');
      for (const m of markers) {
        if (!texts.stdout.includes(m) && !texts.stderr.includes(m)) {
          withheld++;
          continue;
        }
        released++;
        for (const r of READING_NAMES) {
          expect(prints(seen, r, m), `${m} released but ${r} does not print it; chunks ${order}; ${JSON.stringify(seen)}`).toBe(true);
        }
      }
    }), { seed: SEED, numRuns: CASES, endOnFailure: true });
    // The generator reaches both: markers released, and markers withheld.
    expect(released).toBeGreaterThan(CASES / 2);
    expect(withheld).toBeGreaterThan(CASES / 10);
  }, 600_000);
});
