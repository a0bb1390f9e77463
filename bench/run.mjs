// `npm run bench`: whole-process throughput of `airlock sanitize` against peers, leak check,
// linearity on adversarial inputs, capture overhead, and every `inspect` mode against sanitize,
// all in one run on the same machine.
//
// Usage: node bench/run.mjs [--only NAME[,NAME]] [--skip NAME[,NAME]] [--capture] [--help]
//   NAME is an input (plain, colour, hostile) or a section (throughput, indexing, redaction, linearity,
//   capture, inspect). The inspect section runs the three, cjk and rtl (logs of CJK and of Arabic and Hebrew
//   text) and bel-bs (named inputs narrow it; naming cjk, rtl or bel-bs runs it; --skip drops any).
//   Naming only inputs runs throughput+leaks on those inputs; `--capture` = `--only capture`.
// Env: BENCH_MB (default 32, quick 4)   BENCH_QUICK=1   BENCH_RUNS (5)   BENCH_LIN_RUNS (5)
//      BENCH_LIN_MAX_MB (16, quick 4)   BENCH_TIMEOUT_S (20)   BENCH_CAPTURE_MB (256, quick 32)
//      BENCH_CAPTURE_RUNS (3)   BENCH_INSPECT_MB (16, quick 4)   BENCH_INSPECT_RUNS (3)
//      BENCH_AIRLOCK (CLI path, default dist/airlock.mjs)   BENCH_KEEP_ENV=1
//      BENCH_SHARED (checkout whose shared/ the indexing section bundles, default this one)
//      BENCH_BASELINE (another CLI build, e.g. an older commit's dist/airlock.mjs: run beside airlock;
//        the indexing section also runs that checkout's shared/ Sanitizer in process, alternating)
// Exit code: 0 ok, 1 airlock missing/failed or leaked, 2 bad arguments.
import { cpus, totalmem, loadavg } from 'node:os';
import { statSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { INPUTS, ensureInput, ensureEmpty, CORPUS_DIR, MiB } from './corpus.mjs';
import { RUNNERS, AIRLOCK, BASELINE, ROOT, DROPPED_ENV, runNode, median, probeAirlock, interleavedRounds } from './runners.mjs';
import { scanLeaks, leakVerdict, leakSummary } from './leaks.mjs';
import { runLinearity, growth, growthLimit } from './linearity.mjs';
import { runCaptureSection } from './capture.mjs';
import { bundleSanitizer, measureIndexing } from './indexing.mjs';
import { INSPECT_INPUTS, INSPECT_MODES, INSPECT_TARGET, inspectMisses, runInspectSection } from './inspect.mjs';
import { bundleRedaction, measureRedaction, measureRedactionLinearity, REDACTION_TARGET } from './redaction.mjs';

// ---------------------------------------------------------------------------------------------
// Configuration
const env = process.env;
const QUICK = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
const num = (v, d) => (v === undefined || v === '' ? d : Number(v));
const CFG = {
  quick: QUICK,
  mb: num(env.BENCH_MB, QUICK ? 4 : 32),
  runs: num(env.BENCH_RUNS, 5),
  linRuns: num(env.BENCH_LIN_RUNS, 5),
  linMaxMb: num(env.BENCH_LIN_MAX_MB, QUICK ? 4 : 16),
  timeoutS: num(env.BENCH_TIMEOUT_S, 20),
  captureMb: num(env.BENCH_CAPTURE_MB, QUICK ? 32 : 256),
  captureRuns: num(env.BENCH_CAPTURE_RUNS, 3),
  inspectMb: num(env.BENCH_INSPECT_MB, QUICK ? 4 : 16),
  inspectRuns: num(env.BENCH_INSPECT_RUNS, 3),
};
const SECTIONS = ['throughput', 'indexing', 'redaction', 'linearity', 'capture', 'inspect'];

function parseArgs(argv) {
  const only = new Set();
  const skip = new Set();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const list = (v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (a === '--help' || a === '-h') return { help: true };
    else if (a === '--only') list(argv[++i]).forEach((x) => only.add(x));
    else if (a.startsWith('--only=')) list(a.slice(7)).forEach((x) => only.add(x));
    else if (a === '--skip') list(argv[++i]).forEach((x) => skip.add(x));
    else if (a.startsWith('--skip=')) list(a.slice(7)).forEach((x) => skip.add(x));
    else if (a === '--capture') only.add('capture');
    else if (a === '--quick') CFG.quick = true;
    else return { error: `unknown argument ${a}` };
  }
  for (const n of [...only, ...skip]) {
    if (!SECTIONS.includes(n) && !INPUTS[n] && !INSPECT_INPUTS.includes(n)) return { error: `unknown input or section '${n}' (inputs: ${Object.keys(INPUTS).join(', ')}, and for inspect also ${INSPECT_INPUTS.filter((m) => !INPUTS[m]).join(', ')}; sections: ${SECTIONS.join(', ')})` };
  }
  const onlyInputs = [...only].filter((n) => INPUTS[n]);
  const onlySections = [...only].filter((n) => SECTIONS.includes(n));
  // Naming inputs implies the throughput section; naming nothing means everything.
  let sections = only.size === 0 ? [...SECTIONS] : [...new Set([...onlySections, ...(onlyInputs.length ? ['throughput', 'indexing', 'redaction'] : [])])];
  sections = sections.filter((s) => !skip.has(s));
  let inputs = onlyInputs.length ? onlyInputs : Object.keys(INPUTS);
  inputs = inputs.filter((n) => !skip.has(n));
  // The inspect section's inputs: those named (bel-bs, its own, also names the section), else all.
  const namedInspect = [...only].filter((n) => INSPECT_INPUTS.includes(n));
  if (namedInspect.some((n) => !INPUTS[n]) && !sections.includes('inspect') && !skip.has('inspect')) sections.push('inspect');
  const inspectInputs = (namedInspect.length ? namedInspect : INSPECT_INPUTS).filter((n) => !skip.has(n));
  return { sections, inputs, inspectInputs };
}

// ---------------------------------------------------------------------------------------------
// Formatting helpers
const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
function table(rows, alignRight = () => true) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((cell, c) => {
    const s = String(cell);
    return c > 0 && alignRight(c) ? s.padStart(widths[c]) : s.padEnd(widths[c]);
  }).join('  ').trimEnd()).join('\n');
}
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}x` : 'n/a');

// ---------------------------------------------------------------------------------------------
// Throughput + leak check. Per input: one untimed warm-up run per runner whose stdout is captured
// and scanned for leaks (it also warms the page cache), then BENCH_RUNS timed rounds in which the
// runners are interleaved and their order rotated, so drift (thermal, noisy neighbours) spreads
// over all runners instead of landing on one. Median per runner.
async function throughputSection(inputs, runnerNames, log) {
  const results = {};
  for (const name of inputs) {
    const t = Date.now();
    const { file, generated } = ensureInput(name, CFG.mb * MiB);
    const bytes = statSync(file).size;
    if (generated) log(`  generated ${name} (${fmtMiB(bytes)}) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    const res = { file: relative(ROOT, file), bytes, runners: {} };
    results[name] = res;

    for (const r of runnerNames) {
      const w = await runNode(RUNNERS[r].args, file, { sink: 'capture' });
      const entry = { ms: [], cpuMs: [], rssMiB: [], outBytes: w.outBytes, code: w.code };
      if (w.code !== 0) entry.error = `exit ${w.code}${w.signal ? ` ${w.signal}` : ''}: ${w.stderr.trim().split('\n')[0] ?? ''}`;
      entry.leaks = scanLeaks(w.out);
      res.runners[r] = entry;
    }
    const failed = Object.fromEntries(runnerNames.filter((r) => res.runners[r].error).map((r) => [r, res.runners[r].error]));
    const samples = await interleavedRounds(runnerNames, CFG.runs, (r) => runNode(RUNNERS[r].args, file), failed);
    for (const r of runnerNames) Object.assign(res.runners[r], samples[r], failed[r] ? { error: failed[r] } : {});
    for (const r of runnerNames) {
      const e = res.runners[r];
      if (!e.error && e.ms.length) {
        e.medianMs = median(e.ms);
        e.minMs = Math.min(...e.ms);
        e.mibPerS = bytes / MiB / (e.medianMs / 1000);
      }
      if (!e.error && e.cpuMs.length) {
        e.medianCpuMs = median(e.cpuMs);
        e.cpuMibPerS = bytes / MiB / (e.medianCpuMs / 1000);
        e.peakRssMiB = Math.max(...e.rssMiB);
      }
    }
    log(`  ${name}: ${runnerNames.map((r) => `${r} ${res.runners[r].medianMs?.toFixed(0) ?? 'ERR'} ms (cpu ${res.runners[r].medianCpuMs?.toFixed(0) ?? '?'})`).join(', ')}`);
  }
  return results;
}

function throughputTable(results, runnerNames, key) {
  const has = (r) => runnerNames.includes(r);
  const header = ['input', 'size', ...runnerNames.map((r) => RUNNERS[r].label)];
  if (has('airlock') && has('strip-ansi')) header.push('airlock/strip-ansi');
  if (has('airlock') && has('util')) header.push('airlock/util');
  // The copy floor: a bare node stdin->stdout copy of the same bytes; 1.0 would be free sanitizing.
  if (has('airlock') && has('cat')) header.push('airlock time/copy');
  if (has('airlock') && has('baseline')) header.push('airlock/baseline');
  const rows = [header];
  for (const [name, res] of Object.entries(results)) {
    const row = [name, fmtMiB(res.bytes)];
    for (const r of runnerNames) {
      const e = res.runners[r];
      row.push(e.error ? 'ERR' : e[key] === undefined ? 'n/a' : e[key].toFixed(1));
    }
    const a = res.runners.airlock?.[key];
    if (has('airlock') && has('strip-ansi')) row.push(ratio(a, res.runners['strip-ansi']?.[key]));
    if (has('airlock') && has('util')) row.push(ratio(a, res.runners.util?.[key]));
    if (has('airlock') && has('cat')) row.push(ratio(res.runners.cat?.[key], a));
    if (has('airlock') && has('baseline')) row.push(ratio(a, res.runners.baseline?.[key]));
    rows.push(row);
  }
  return table(rows);
}

function printThroughput(results, runnerNames) {
  console.log(`\nThroughput (wall): MiB/s of input, whole process spawn -> exit, median of ${CFG.runs}; ratio > 1 = airlock faster`);
  console.log(throughputTable(results, runnerNames, 'mibPerS'));
  // CPU time ignores time spent waiting for a core, so on a busy box this is the steadier ratio.
  console.log(`\nThroughput (CPU): MiB of input per CPU-second (user+sys, all threads), median of ${CFG.runs}`);
  console.log(throughputTable(results, runnerNames, 'cpuMibPerS'));
  // Streaming vs whole-input: the peers hold the input (and a copy as a string) in memory.
  console.log('\nPeak RSS (MiB)');
  const rows = [['input', ...runnerNames.map((r) => RUNNERS[r].label)]];
  for (const [name, res] of Object.entries(results)) {
    rows.push([name, ...runnerNames.map((r) => res.runners[r].peakRssMiB?.toFixed(0) ?? 'n/a')]);
  }
  console.log(table(rows));
  for (const [name, res] of Object.entries(results)) {
    for (const [r, e] of Object.entries(res.runners)) if (e.error) console.log(`  ${name} / ${r}: ${e.error}`);
  }
}

function printLeaks(results, runnerNames) {
  console.log('\nLeak check (stdout bytes: ESC, C0 but LF/TAB, DEL, raw C1, bad UTF-8, U+0080-009F, bidi, tags)');
  const rows = [['input', 'runner', 'out bytes', 'result']];
  let airlockFailed = false;
  for (const [name, res] of Object.entries(results)) {
    for (const r of runnerNames) {
      const e = res.runners[r];
      if (r === 'cat') {
        // cat's output is the input itself: show how much hostile material there is to remove.
        rows.push([name, 'input (raw)', fmtMiB(res.bytes), leakSummary(e.leaks)]);
      } else if (r === 'airlock') {
        const v = e.error ? `FAIL (${e.error})` : leakVerdict(e.leaks);
        if (v !== 'PASS') airlockFailed = true;
        rows.push([name, RUNNERS[r].label, fmtMiB(e.outBytes), v]);
      } else {
        rows.push([name, RUNNERS[r].label, fmtMiB(e.outBytes), e.error ? `ERR (${e.error})` : leakSummary(e.leaks)]);
      }
    }
  }
  console.log(table(rows, (c) => c === 2));
  return airlockFailed;
}

// ---------------------------------------------------------------------------------------------
// Indexing: the Sanitizer in-process as the viewer's span index runs it (offset map + every span),
// beside the same Sanitizer without them. Fresh process per measurement, median of the runs inside.
async function indexingSection(inputs, log) {
  await bundleSanitizer();
  // With BENCH_BASELINE=CHECKOUT/dist/airlock.mjs, that checkout's shared/ too: the sanitizer alone
  // (no I/O, no start-up), old against new, in alternating fresh processes.
  const baseRoot = BASELINE ? dirname(dirname(BASELINE)) : null;
  const baseBundle = baseRoot && existsSync(join(baseRoot, 'shared/sanitize/index.ts'))
    ? await bundleSanitizer(baseRoot, join(CORPUS_DIR, 'sanitize-bundle-baseline.mjs')) : null;
  const results = {};
  const runs = QUICK ? 3 : CFG.runs;
  for (const name of inputs) {
    const { file } = ensureInput(name, CFG.mb * MiB);
    const bytes = statSync(file).size;
    const index = measureIndexing(file, bytes, 'index', runs);
    const plain = measureIndexing(file, bytes, 'plain', runs);
    results[name] = { bytes, index, plain };
    if (baseBundle) {
      // Three alternations of (new, old), each a fresh process of `runs` passes: the medians of all.
      const mine = [plain.medianMs];
      const theirs = [];
      for (let k = 0; k < 3; k++) {
        theirs.push(measureIndexing(file, bytes, 'plain', runs, baseBundle).medianMs);
        if (k < 2) mine.push(measureIndexing(file, bytes, 'plain', runs).medianMs);
      }
      results[name].sanitizerMs = median(mine);
      results[name].baselineMs = median(theirs);
    }
    log(`  ${name}: index ${index.mbPerS?.toFixed(0) ?? 'ERR'} MB/s, no map/spans ${plain.mbPerS?.toFixed(0) ?? 'ERR'} MB/s`);
  }
  return results;
}

function printIndexing(results) {
  console.log(`\nIndexing (in-process, 1 MiB chunks, median of ${QUICK ? 3 : CFG.runs}): MB/s (10^6 bytes) of input; target >= 200 MB/s with map + spans`);
  const withBase = Object.values(results).some((r) => r.baselineMs !== undefined);
  const rows = [['input', 'size', 'map+spans MB/s', 'no map/spans MB/s', 'map+spans cost', 'spans', 'map segments', 'peak RSS MiB', ...(withBase ? ['no map/spans: airlock/baseline'] : [])]];
  for (const [name, r] of Object.entries(results)) {
    const i = r.index;
    const p = r.plain;
    rows.push([name, fmtMiB(r.bytes), i.error ? 'ERR' : i.mbPerS.toFixed(0), p.error ? 'ERR' : p.mbPerS.toFixed(0),
      i.error || p.error ? 'n/a' : `${i.medianMs >= p.medianMs ? '+' : ''}${((i.medianMs / p.medianMs - 1) * 100).toFixed(0)}%`, i.spans ?? 'n/a', i.segments ?? 'n/a', i.rssMiB?.toFixed(0) ?? 'n/a',
      ...(withBase ? [r.baselineMs && r.sanitizerMs ? `${(r.baselineMs / r.sanitizerMs).toFixed(2)}x (${r.sanitizerMs.toFixed(0)} vs ${r.baselineMs.toFixed(0)} ms)` : 'n/a'] : [])]);
  }
  console.log(table(rows));
  if (withBase) console.log('  (airlock/baseline: the sanitizer alone, warm, in alternating fresh processes; above 1 = faster than the baseline)');
  for (const [name, r] of Object.entries(results)) for (const k of ['index', 'plain']) if (r[k].error) console.log(`  ${name} / ${k}: ${r[k].error}`);
}

// Redaction: the secret-redaction stage after the sanitizer, as a share of the sanitizer's time.
async function redactionSection(inputs, log) {
  await bundleRedaction();
  const results = {};
  const runs = QUICK ? 3 : Math.max(CFG.runs, 5);
  for (const name of inputs) {
    const { file } = ensureInput(name, CFG.mb * MiB);
    results[name] = { bytes: statSync(file).size, ...measureRedaction(file, runs) };
    log(`  ${name}: stage ${(results[name].ratio * 100).toFixed(0)} % of sanitize`);
  }
  log('  adversarial lines...');
  return { inputs: results, adversarial: measureRedactionLinearity() };
}

function printRedaction({ inputs: results, adversarial }, throughput) {
  console.log(`\nRedaction stage (in-process, 1 MiB chunks, sanitizer alone and sanitizer + redactor in alternating rounds, CPU ms, median of ${QUICK ? 3 : Math.max(CFG.runs, 5)}): target <= ${REDACTION_TARGET * 100} % of sanitize`);
  // Beside it, the stage's time against the whole `airlock sanitize` process's CPU time (throughput section).
  const whole = (name) => throughput?.[name]?.runners?.airlock?.medianCpuMs;
  const rows = [['input', 'size', 'sanitize cpu ms', 'sanitize+redact cpu ms', 'stage/sanitize (per-round median)', 'stage/airlock sanitize (whole process)', 'secrets found']];
  for (const [name, r] of Object.entries(results)) {
    rows.push([name, fmtMiB(r.bytes), r.error ? 'ERR' : r.sanitizeMs.toFixed(1), r.error ? 'ERR' : r.pipelineMs.toFixed(1), r.error ? r.error : `${(r.ratio * 100).toFixed(0)} %${r.ratio <= REDACTION_TARGET ? '' : ' (OVER TARGET)'}`,
      r.error || !whole(name) ? 'n/a' : `${((r.stageMs / whole(name)) * 100).toFixed(0)} %`, r.found ?? 'n/a']);
  }
  console.log(table(rows));
  console.log('\nRedaction stage on adversarial text (alone, 64 KiB chunks, best of 3): CPU ms for 1 and 4 MiB; growth ~1 linear, ~4 quadratic');
  if (adversarial.error) console.log(`  ERR ${adversarial.error}`);
  else console.log(table([['unit repeated', '1 MiB', '4 MiB', 'growth'], ...Object.entries(adversarial).map(([name, a]) => [JSON.stringify(name), a.ms1.toFixed(0), a.ms4.toFixed(0), `${a.growth.toFixed(2)}${a.growth > 2 ? ' (SUPERLINEAR?)' : ''}`])]));
}

function printLinearity(lin, sizesMiB) {
  console.log(`\nLinearity: CPU ns/byte net of startup, min of >=${CFG.linRuns} runs (startup CPU ms, min of ${Object.values(lin.startupSamples)[0]} empty runs: ${Object.entries(lin.startup).map(([r, ms]) => `${r} ${ms.toFixed(0)}`).join(', ')})`);
  console.log(`growth = t(${sizesMiB.at(-1)})/t(${sizesMiB[0]}) / ${sizesMiB.at(-1) / sizesMiB[0]}: ~1 linear, ~${sizesMiB.at(-1) / sizesMiB[0]} quadratic; timeout ${CFG.timeoutS} s`);
  const rows = [['pattern', 'runner', ...sizesMiB.map((s) => `${s} MiB`), 'growth']];
  let airlockBad = false;
  const limit = growthLimit(sizesMiB);
  for (const [kind, byRunner] of Object.entries(lin.patterns)) {
    for (const [r, points] of Object.entries(byRunner)) {
      const cells = points.map((p) => (p.skipped ? '-' : p.timeout ? 'timeout' : p.error ? 'ERR' : p.nsPerByte.toFixed(2)));
      const g = growth(points);
      if (r === 'airlock' && (points.some((p) => p.error || p.timeout) || (g.value ?? 0) > limit)) airlockBad = true;
      rows.push([kind, RUNNERS[r].label, ...cells, g.text]);
    }
  }
  console.log(table(rows));
  for (const byRunner of Object.values(lin.patterns)) {
    for (const [r, points] of Object.entries(byRunner)) for (const p of points) if (p.error) console.log(`  ${r} ${p.sizeMiB} MiB: ${p.error}`);
  }
  if (airlockBad) console.log(`  WARNING: airlock looks superlinear (growth > ${limit.toFixed(1)}), failed or timed out on an adversarial input`);
  return airlockBad;
}

function printCapture(cap) {
  console.log('\nCapture overhead');
  if (!cap.available) { console.log(`capture: not available (${cap.reason})`); return; }
  if (cap.error) { console.log(`capture: ERROR ${cap.error}`); return; }
  const ok = cap.ratio <= cap.target;
  console.log(table([
    ['command', 'median ms', 'MiB/s'],
    [`airlock capture --vault DIR -- cat FILE (${cap.sizeMiB} MiB)`, cap.captureMs.toFixed(0), (cap.bytes / MiB / (cap.captureMs / 1000)).toFixed(1)],
    ['airlock sanitize < FILE', cap.sanitizeMs.toFixed(0), (cap.bytes / MiB / (cap.sanitizeMs / 1000)).toFixed(1)],
  ]));
  console.log(`capture/sanitize = ${cap.ratio.toFixed(2)} (target <= ${cap.target}: ${ok ? 'OK' : 'OVER TARGET'}); vault ${fmtMiB(cap.vaultBytes)}, capture stdout ${fmtMiB(cap.captureOutBytes)}, median of ${cap.runs}`);
  if (cap.cpuRatio !== undefined) console.log(`CPU (airlock process, all threads): capture ${cap.captureCpuMs.toFixed(0)} ms, sanitize ${cap.sanitizeCpuMs.toFixed(0)} ms, ratio ${cap.cpuRatio.toFixed(2)}; sandbox: ${cap.sandbox}`);
}

// ---------------------------------------------------------------------------------------------
// inspect: every mode against sanitize --report on the same bytes (bench/inspect.mjs).
function printInspect(results) {
  const modes = Object.keys(Object.values(results)[0]?.modes ?? {});
  const mb = (Object.values(results)[0]?.bytes ?? 0) / MiB;
  console.log(`\ninspect (${mb.toFixed(0)} MiB inputs, output to /dev/null, median of ${CFG.inspectRuns}): wall time against sanitize --report in the same rounds; target: a full dump <= ${INSPECT_TARGET.dumpRatio}x, a summary or range <= ${INSPECT_TARGET.summaryRatio}x, every mode <= ${INSPECT_TARGET.rssMiB} MiB peak RSS`);
  const cell = (f, key) => (f.error ? 'ERR' : f[key] === undefined ? 'n/a' : `${f[key].toFixed(2)}x`);
  const head = ['input', 'sanitize', ...modes.map((m) => INSPECT_MODES[m].label)];
  console.log(table([head, ...Object.entries(results).map(([name, r]) => [name, r.sanitize.error ? 'ERR' : `${r.sanitize.ms.toFixed(0)} ms`, ...modes.map((m) => cell(r.modes[m], 'ratio'))])]));
  console.log('\ninspect, per-round ratio (each run against the same round\'s sanitize): median [p25-p75]');
  const paired = (f) => (f.paired === undefined ? 'n/a' : `${f.paired.median.toFixed(2)}x [${f.paired.p25.toFixed(2)}-${f.paired.p75.toFixed(2)}]`);
  console.log(table([head, ...Object.entries(results).map(([name, r]) => [name, '', ...modes.map((m) => paired(r.modes[m]))])]));
  console.log('\ninspect, CPU time (user+sys, all threads) against sanitize\'s');
  console.log(table([head, ...Object.entries(results).map(([name, r]) => [name, r.sanitize.cpuMs === undefined ? 'n/a' : `${r.sanitize.cpuMs.toFixed(0)} ms`, ...modes.map((m) => cell(r.modes[m], 'cpuRatio'))])]));
  console.log('\ninspect, peak RSS (MiB)');
  console.log(table([head, ...Object.entries(results).map(([name, r]) => [name, r.sanitize.peakRssMiB?.toFixed(0) ?? 'n/a', ...modes.map((m) => r.modes[m].peakRssMiB?.toFixed(0) ?? 'n/a')])]));
  const misses = inspectMisses(results);
  const total = Object.keys(results).length * modes.length;
  console.log(misses.length === 0 ? `inspect: all ${total} (input, mode) pairs within target` : `inspect: ${total - misses.length} of ${total} (input, mode) pairs within target; over:\n${misses.map((m) => `  ${m}`).join('\n')}`);
}

// ---------------------------------------------------------------------------------------------
async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.help) {
    const src = (await import('node:fs')).readFileSync(new URL(import.meta.url), 'utf8');
    const lines = src.split('\n');
    // The header comment: every line up to the first that is not one.
    console.log(lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.slice(3)).join('\n'));
    return 0;
  }
  if (args.error) { console.error(`bench: ${args.error}`); return 2; }
  if (CFG.quick && env.BENCH_MB === undefined) CFG.mb = 4;
  if (CFG.quick && env.BENCH_LIN_MAX_MB === undefined) CFG.linMaxMb = 4;
  if (CFG.quick && env.BENCH_CAPTURE_MB === undefined) CFG.captureMb = 32;
  if (CFG.quick && env.BENCH_INSPECT_MB === undefined) CFG.inspectMb = 4;

  const wall = Date.now();
  const log = (s) => console.error(s); // progress on stderr, tables on stdout
  const sizesMiB = [];
  for (let s = 1; s <= CFG.linMaxMb; s *= 2) sizesMiB.push(s);

  console.log('Airlock bench');
  console.log(`node ${process.version} | ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length} | ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`);
  if (BASELINE) console.log(`baseline: ${BASELINE} (ratio airlock/baseline > 1 = airlock faster)`);
  console.log(`airlock: ${relative(ROOT, AIRLOCK)} | inputs ${CFG.mb} MiB each | runs ${CFG.runs} | linearity ${sizesMiB.join('/')} MiB x${CFG.linRuns}, timeout ${CFG.timeoutS} s | capture ${CFG.captureMb} MiB x${CFG.captureRuns} | inspect ${CFG.inspectMb} MiB x${CFG.inspectRuns}${CFG.quick ? ' | QUICK' : ''}`);
  // Other work on the box inflates absolute numbers; interleaving keeps the ratios fair-ish.
  const load = loadavg()[0];
  console.log(`load avg (1 min) ${load.toFixed(2)}${load > cpus().length / 2 ? ' | WARNING: machine busy, absolute MiB/s will be noisy' : ''}`);
  if (DROPPED_ENV.length) console.log(`child env: removed ${DROPPED_ENV.join(', ')} (startup noise; BENCH_KEEP_ENV=1 keeps them)`);
  console.log(`sections: ${args.sections.join(', ')}${args.sections.includes('throughput') ? ` | inputs: ${args.inputs.join(', ')}` : ''}`);

  // The product must be there: without it the peers' numbers have nothing to be compared with.
  ensureEmpty();
  const hiFile = join(CORPUS_DIR, 'probe-hi.txt');
  if (!existsSync(hiFile)) writeFileSync(hiFile, 'hi\n');
  const problem = await probeAirlock(hiFile);
  if (problem) {
    console.log(`\nairlock: NOT AVAILABLE: ${problem}`);
    console.log('Build it with `npm run build` (npm run bench does this first).');
    return 1;
  }

  const json = { when: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, config: { ...CFG, sizesMiB, airlock: relative(ROOT, AIRLOCK) }, sections: args.sections };
  let failed = false;
  const runnerNames = ['airlock', 'strip-ansi', 'util', 'cat', ...(BASELINE ? ['baseline'] : [])];

  if (args.sections.includes('throughput') && args.inputs.length) {
    log('throughput + leaks...');
    const results = await throughputSection(args.inputs, runnerNames, log);
    printThroughput(results, runnerNames);
    if (printLeaks(results, runnerNames)) failed = true;
    json.throughput = results;
  }
  if (args.sections.includes('indexing') && args.inputs.length) {
    log('indexing...');
    const idx = await indexingSection(args.inputs, log);
    printIndexing(idx);
    json.indexing = idx;
  }
  if (args.sections.includes('redaction') && args.inputs.length) {
    log('redaction...');
    const red = await redactionSection(args.inputs, log);
    printRedaction(red, json.throughput);
    json.redaction = red;
  }
  if (args.sections.includes('linearity')) {
    log('linearity...');
    const lin = await runLinearity({ sizesMiB, runners: ['airlock', 'strip-ansi', ...(BASELINE ? ['baseline'] : [])], runs: CFG.linRuns, timeoutMs: CFG.timeoutS * 1000, log });
    printLinearity(lin, sizesMiB);
    json.linearity = lin;
  }
  if (args.sections.includes('capture')) {
    log('capture...');
    const cap = await runCaptureSection({ sizeMiB: CFG.captureMb, runs: CFG.captureRuns, log });
    printCapture(cap);
    json.capture = cap;
  }

  if (args.sections.includes('inspect') && args.inspectInputs.length) {
    log('inspect...');
    const ins = await runInspectSection({ mb: CFG.inspectMb, runs: CFG.inspectRuns, inputs: args.inspectInputs, log });
    printInspect(ins);
    json.inspect = ins;
  }

  json.wallSeconds = (Date.now() - wall) / 1000;
  const out = join(CORPUS_DIR, 'results.json');
  writeFileSync(out, JSON.stringify(json, null, 2) + '\n');
  console.log(`\nwall ${json.wallSeconds.toFixed(0)} s | results: ${relative(ROOT, out)}${failed ? ' | AIRLOCK LEAK CHECK FAILED' : ''}`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
