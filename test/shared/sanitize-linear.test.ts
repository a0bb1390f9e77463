/**
 * Proves the parser and sanitizer are linear in their input on adversarial patterns (the ones that
 * make regex sanitizers quadratic: repeated `ESC ]`, `ESC [` plus endless `;`, an unterminated OSC
 * followed by MiB of text, repeated `ESC [ 1`, …). Not a timing unit test: the primary measure is
 * WORK — the number of sink callbacks, output bytes and offset-map segments at sizes N and 4N must
 * grow at most 4.5x. As a sanity check against quadratic blow-up only, the CPU time ratio (least of
 * several runs, on the production-like bundle) must stay below 8 (a quadratic algorithm gives 16).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Parser } from '../../shared/parser/parser';
import { NoopSink } from '../../shared/parser/sink';
import { sanitize } from '../../shared/sanitize/sanitizer';
import { bigHostileStream } from '../helpers/arbitraries';
import { loadBundle, minCpuMs, type Bundled } from '../helpers/bundle';
import { bytes, utf8 } from '../helpers/record';

const KiB = 1024;

/** Repeats `unit` until the result is at least `size` bytes (then cuts it to exactly `size`). */
function fill(prefix: Uint8Array, unit: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(prefix.subarray(0, size));
  for (let i = prefix.length; i < size; i += unit.length) out.set(unit.subarray(0, Math.min(unit.length, size - i)), i);
  return out;
}

const PATTERNS: Record<string, (size: number) => Uint8Array> = {
  'ESC ] repeated': (n) => fill(bytes(''), bytes('\x1b]'), n),
  'ESC [ then ; forever': (n) => fill(bytes('\x1b['), bytes(';'), n),
  'ESC [ then digits forever': (n) => fill(bytes('\x1b['), bytes('1'), n),
  'unterminated OSC then text': (n) => fill(bytes('\x1b]0;'), bytes('lorem ipsum dolor sit amet\n'), n),
  'ESC [ 1 repeated': (n) => fill(bytes(''), bytes('\x1b[1'), n),
  'ESC repeated': (n) => fill(bytes(''), bytes('\x1b'), n),
  'raw C1 CSI repeated': (n) => fill(bytes(''), bytes('\x9b'), n),
  'C2 lead bytes repeated': (n) => fill(bytes(''), bytes('\xc2'), n),
  'OSC 8 with a huge URI, then label': (n) => fill(bytes('\x1b]8;;https://'), bytes('a'), n),
  'DCS header ; forever': (n) => fill(bytes('\x1bP'), bytes(';'), n),
  'ESC ] 8 ; ; ESC \\ pairs': (n) => fill(bytes(''), bytes('\x1b]8;;x\x1b\\'), n),
  'ESC inside string repeated (ESC ] x ESC)': (n) => fill(bytes(''), bytes('\x1b]x\x1b'), n),
  'CR repeated': (n) => fill(bytes(''), bytes('a\r'), n),
  'BS repeated': (n) => fill(bytes(''), bytes('ab\b'), n),
  'invisible characters': (n) => fill(bytes(''), utf8('\u202e\u{e0041}'), n),
  'invalid UTF-8 prefixes': (n) => fill(bytes(''), bytes('\xf0\x9f\x99'), n),
  'random hostile': (n) => bigHostileStream(n, 11),
};

/** Sink callbacks the parser makes for `input`. */
function parserWork(input: Uint8Array): number {
  let calls = 0;
  const sink = new (class extends NoopSink {
    override print(): void {
      calls++;
    }
    override span(): void {
      calls++;
    }
  })();
  const p = new Parser(sink);
  p.feed(input);
  p.end();
  return calls;
}

/** Work measures of the sanitizer: spans it saw, text bytes, offset-map segments. */
function sanitizerWork(input: Uint8Array, cr: 'newline' | 'overwrite'): number[] {
  let spans = 0;
  const r = sanitize(input, { cr, mapOffsets: true, hooks: { onSpan: () => void spans++ } });
  return [spans, r.text.length, r.map!.segments];
}

const N = 48 * KiB;

describe('work grows linearly (N -> 4N: at most 4.5x)', () => {
  it.each(Object.keys(PATTERNS))('%s', (name) => {
    const small = PATTERNS[name](N);
    const large = PATTERNS[name](4 * N);
    const ws = parserWork(small);
    const wl = parserWork(large);
    expect(wl).toBeLessThanOrEqual(4.5 * Math.max(ws, 1));
    // Linear in the other direction too: 4x the bytes is never less work (sanity for the counter).
    expect(wl).toBeGreaterThanOrEqual(ws);
    for (const cr of ['newline', 'overwrite'] as const) {
      const s = sanitizerWork(small, cr);
      const l = sanitizerWork(large, cr);
      for (let i = 0; i < s.length; i++) expect(l[i], `measure ${i} (${cr})`).toBeLessThanOrEqual(4.5 * Math.max(s[i], 1));
    }
  });

  it('work is bounded by the input: at most one callback per byte, plus one', () => {
    for (const name of Object.keys(PATTERNS)) {
      const input = PATTERNS[name](64 * KiB);
      expect(parserWork(input), name).toBeLessThanOrEqual(input.length + 1);
    }
  });
});

describe('time grows linearly (sanity check against quadratic blow-up)', () => {
  let shipped: Bundled;
  beforeAll(async () => {
    shipped = await loadBundle();
  });

  const T = 256 * KiB;
  it.each(Object.keys(PATTERNS))('%s: CPU time at 4N / N < 8', (name) => {
    const small = PATTERNS[name](T);
    const large = PATTERNS[name](4 * T);
    for (const cr of ['newline', 'overwrite'] as const) {
      const run = (input: Uint8Array) => () => void shipped.sanitize(input, { cr });
      run(small)(); // warm up
      // 1 ms floor: tiny times are dominated by timer resolution and JIT, not by the algorithm.
      const ts = Math.max(minCpuMs(run(small), 3), 1);
      const tl = minCpuMs(run(large), 3);
      if (process.env.SHOW_RATIOS) console.log(`${name} ${cr}: ${ts.toFixed(1)} ms -> ${tl.toFixed(1)} ms (${(tl / ts).toFixed(2)}x)`);
      expect(tl / ts, `${cr}: ${ts.toFixed(1)} ms -> ${tl.toFixed(1)} ms`).toBeLessThan(8);
    }
  });
});
