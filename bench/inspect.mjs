// The inspect section of `npm run bench`: every mode of `airlock inspect` against `airlock sanitize
// --report` on the same bytes, in the same interleaved rounds (issue #38: a full dump within 3x of
// sanitize, the summary and ranged modes within 1.5x, every mode under 100 MiB peak RSS, on every
// input). Output goes to /dev/null for both, as
// to a file: the dump writes 5-17 bytes of text per input byte, and a pipe to this process would
// add this process's reading of it to the comparison.
//
// Modes: the full dump (not a terminal: the bulk path), --summary-only, --json, a 4 KiB range, the
// dump with --color always, and the dump as on an 80-column terminal (tty-probe.mjs makes stdout
// report a TTY of that width; the bytes still go to /dev/null, so what is timed is Airlock's work,
// not a terminal's drawing).
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureAdversarial, ensureInput, MiB } from './corpus.mjs';
import { AIRLOCK, interleavedRounds, median, runNode } from './runners.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const TTY_PROBE = join(HERE, 'tty-probe.mjs');

/** The ratio to sanitize that issue #38 allows a full dump and a summary or range, and the peak RSS it allows any mode. */
export const INSPECT_TARGET = { dumpRatio: 3, summaryRatio: 1.5, rssMiB: 100 };

/**
 * Inputs: the three logs, logs of CJK and of Arabic and Hebrew text (rows of characters, and of
 * notation), and alternating BEL/BS (a span per byte, none merging).
 */
export const INSPECT_INPUTS = ['plain', 'colour', 'hostile', 'cjk', 'rtl', 'bel-bs'];

/** Each mode: its label and the arguments after `inspect FILE` (and a preload, for the terminal). */
export const INSPECT_MODES = {
  dump: { label: 'dump', args: [], full: true },
  summary: { label: '--summary-only', args: ['--summary-only'] },
  json: { label: '--json', args: ['--json'] },
  range: { label: '4 KiB range', args: ['--offset', '1M', '--length', '4K'] },
  colour: { label: '--color always', args: ['--color', 'always'], full: true },
  tty80: { label: '80-col terminal', args: [], tty: 80, full: true },
};

/** The ratio {@link INSPECT_TARGET} allows `mode`: a full dump's, or a summary's or range's. */
export function targetRatio(mode) {
  return INSPECT_MODES[mode].full ? INSPECT_TARGET.dumpRatio : INSPECT_TARGET.summaryRatio;
}

function inputFile(name, bytes) {
  return name === 'bel-bs' ? ensureAdversarial('bel-bs', bytes) : ensureInput(name, bytes);
}

function commandOf(mode, file) {
  const m = INSPECT_MODES[mode];
  return [...(m.tty ? ['--import', TTY_PROBE] : []), AIRLOCK, 'inspect', file, ...m.args];
}

function timed(args, file, stdinIgnore, tty) {
  return runNode(args, file, { sink: 'null', stdinIgnore, env: tty ? { BENCH_TTY_COLUMNS: String(tty) } : {} });
}

/**
 * Runs the section: per input, `runs` rounds in which sanitize and every mode run once each, the
 * order rotated per round. Returns per input the sanitize figures and per mode the median wall and
 * CPU time, their ratios to sanitize's, and the peak RSS over all rounds.
 */
export async function runInspectSection({ mb, runs, modes = Object.keys(INSPECT_MODES), inputs = INSPECT_INPUTS, log }) {
  const results = {};
  for (const name of inputs) {
    const { file } = inputFile(name, mb * MiB);
    const bytes = statSync(file).size;
    const errors = {};
    const samples = await interleavedRounds(['sanitize', ...modes], runs, (r) => (r === 'sanitize'
      ? timed([AIRLOCK, 'sanitize', '--report', '/dev/null'], file, false)
      : timed(commandOf(r, file), file, true, INSPECT_MODES[r].tty)), errors);
    const fig = (r) => {
      const s = samples[r];
      if (errors[r] || s.ms.length === 0) return { error: errors[r] ?? 'no run' };
      return { ms: median(s.ms), cpuMs: s.cpuMs.length ? median(s.cpuMs) : undefined, peakRssMiB: s.rssMiB.length ? Math.max(...s.rssMiB) : undefined };
    };
    const sanitize = fig('sanitize');
    const res = { bytes, sanitize, modes: {} };
    for (const mode of modes) {
      const f = fig(mode);
      if (!f.error && !sanitize.error) {
        f.ratio = f.ms / sanitize.ms;
        f.paired = pairedRatios(samples[mode].ms, samples.sanitize.ms);
        if (f.cpuMs !== undefined && sanitize.cpuMs !== undefined) f.cpuRatio = f.cpuMs / sanitize.cpuMs;
      }
      res.modes[mode] = f;
    }
    results[name] = res;
    log(`  ${name}: sanitize ${sanitize.ms?.toFixed(0) ?? 'ERR'} ms; ${modes.map((m) => `${m} ${res.modes[m].ratio?.toFixed(2) ?? 'ERR'}x`).join(', ')}`);
  }
  return results;
}

/**
 * Each round's run against the same round's sanitize: the quartiles of those ratios, or undefined
 * when a side missed a round (the rounds no longer line up). This host drifts between fast and
 * slow phases within a bench; a round's two runs share a phase, so these show how much of a
 * ratio of medians near the target is drift. The target is still judged on the ratio of medians.
 */
function pairedRatios(ms, sanitizeMs) {
  if (ms.length !== sanitizeMs.length || ms.length === 0) return undefined;
  const r = ms.map((m, i) => m / sanitizeMs[i]).sort((a, b) => a - b);
  // Linear interpolation between the nearest ranks.
  const at = (q) => {
    const x = q * (r.length - 1);
    const lo = Math.floor(x);
    return r[lo] + (r[Math.min(lo + 1, r.length - 1)] - r[lo]) * (x - lo);
  };
  return { p25: at(0.25), median: at(0.5), p75: at(0.75) };
}

/** Which (input, mode) pairs miss {@link INSPECT_TARGET}, as readable lines. */
export function inspectMisses(results) {
  const misses = [];
  for (const [name, res] of Object.entries(results)) {
    for (const [mode, f] of Object.entries(res.modes)) {
      if (f.error) misses.push(`${name} / ${INSPECT_MODES[mode].label}: failed (${f.error})`);
      else {
        if (f.ratio > targetRatio(mode)) misses.push(`${name} / ${INSPECT_MODES[mode].label}: ${f.ratio.toFixed(2)}x sanitize (target ${targetRatio(mode)}x)`);
        if (f.peakRssMiB > INSPECT_TARGET.rssMiB) misses.push(`${name} / ${INSPECT_MODES[mode].label}: peak RSS ${f.peakRssMiB.toFixed(0)} MiB`);
      }
    }
  }
  return misses;
}
