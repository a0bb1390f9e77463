// Linearity: adversarial inputs at doubling sizes. A streaming sanitizer must stay O(n) on any
// input; a regex over the whole string can go quadratic (each failed match start rescans ahead).
//
// growth = net(max)/net(min) ÷ (max/min): ≈ 1 linear (fixed costs such as JIT warm-up push it a
// little below 1), ≈ max/min (16 by default) quadratic.
//
// How the noise is kept out (the box is shared, 2 cores, other jobs running):
// - points are CPU time (user+sys of the child, from cpu-probe.mjs), not wall time, so waiting for
//   a core does not count; the timeout is still wall-clock; wall times are kept in the JSON;
// - each point is the MINIMUM of its runs, not the median: interference only ever adds time;
// - "net" subtracts the runner's startup, the minimum over a pool of empty-stdin runs that are
//   interleaved with the measurements (so a quiet or busy spell affects both sides alike);
// - small sizes get more runs (their net time is small, so one disturbed run matters more).
import { ADVERSARIAL, ensureAdversarial, ensureEmpty, MiB } from './corpus.mjs';
import { runNode, RUNNERS } from './runners.mjs';

const cpuOf = (r) => r.cpuMs ?? r.ms;

/**
 * opts: { sizesMiB, runners, runs, timeoutMs, log }
 * Returns { startup: {runner: ms}, patterns: { [kind]: { [runner]: [point] } } } where a point is
 * { sizeMiB, ms, netMs, nsPerByte, wallMs } | { sizeMiB, timeout, ms } | { sizeMiB, error } | { sizeMiB, skipped }.
 */
export async function runLinearity({ sizesMiB, runners, runs, timeoutMs, log }) {
  const empty = ensureEmpty();
  const startupPool = Object.fromEntries(runners.map((r) => [r, []]));
  const sampleStartup = async (name, n) => {
    for (let i = 0; i < n; i++) startupPool[name].push(cpuOf(await runNode(RUNNERS[name].args, empty)));
  };
  for (const name of runners) await sampleStartup(name, 3);

  const patterns = {};
  for (const kind of ADVERSARIAL) {
    patterns[kind] = Object.fromEntries(runners.map((r) => [r, []]));
    const dead = new Set(); // runners that timed out on a smaller size of this pattern
    for (const sizeMiB of sizesMiB) {
      const { file } = ensureAdversarial(kind, sizeMiB * MiB);
      const reps = Math.max(runs, Math.ceil((runs * 2) / sizeMiB));
      for (const name of runners) {
        if (dead.has(name)) {
          // It timed out at size s, so it would at 2s too: do not burn another timeout.
          patterns[kind][name].push({ sizeMiB, skipped: true });
          continue;
        }
        const cpu = [];
        const walls = [];
        let point = null;
        for (let i = 0; i < reps; i++) {
          if (i % 2 === 0) await sampleStartup(name, 1);
          const r = await runNode(RUNNERS[name].args, file, { timeoutMs });
          if (r.timedOut) { point = { sizeMiB, timeout: true, ms: timeoutMs }; dead.add(name); break; }
          if (r.code !== 0) { point = { sizeMiB, error: `exit ${r.code}${r.signal ? ` ${r.signal}` : ''}`, ms: r.ms }; break; }
          cpu.push(cpuOf(r));
          walls.push(r.ms);
          // Slow points are far above the noise already; one sample is enough there.
          if (r.ms > 3000) break;
        }
        point ??= { sizeMiB, ms: Math.min(...cpu), wallMs: Math.min(...walls), runs: cpu.length };
        patterns[kind][name].push(point);
        log?.(`  ${kind} ${sizeMiB} MiB ${name}: ${point.timeout ? 'timeout' : point.error ?? `cpu ${point.ms.toFixed(0)} ms, wall ${point.wallMs.toFixed(0)} ms (min of ${point.runs})`}`);
      }
    }
  }
  // Net times use the final startup estimate: the pool has been sampled all along.
  const startup = Object.fromEntries(runners.map((r) => [r, Math.min(...startupPool[r])]));
  for (const byRunner of Object.values(patterns)) {
    for (const [name, points] of Object.entries(byRunner)) {
      for (const p of points) {
        if (p.timeout || p.error || p.skipped) continue;
        p.netMs = Math.max(p.ms - startup[name], 0.001);
        p.nsPerByte = (p.netMs * 1e6) / (p.sizeMiB * MiB);
      }
    }
  }
  return { startup, startupSamples: Object.fromEntries(runners.map((r) => [r, startupPool[r].length])), patterns };
}

/** growth = net(last)/net(first) ÷ (size ratio). A lower bound (">=") when the last point timed out. */
export function growth(points) {
  const first = points[0];
  if (!first || first.netMs === undefined) return { text: 'n/a' };
  const lastReal = [...points].reverse().find((p) => p.netMs !== undefined || p.timeout);
  if (!lastReal || lastReal === first) return { text: 'n/a' };
  const sizeRatio = lastReal.sizeMiB / first.sizeMiB;
  if (lastReal.timeout) {
    const g = lastReal.ms / first.netMs / sizeRatio;
    return { value: g, lowerBound: true, text: `>=${g.toFixed(1)}` };
  }
  const g = lastReal.netMs / first.netMs / sizeRatio;
  return { value: g, text: g.toFixed(2) };
}

/** Growth above this is reported as superlinear: halfway (geometrically) to quadratic, at least 2. */
export function growthLimit(sizesMiB) {
  return Math.max(2, Math.sqrt(sizesMiB.at(-1) / sizesMiB[0]));
}
