// Linearity: adversarial inputs at doubling sizes. A streaming sanitizer must stay O(n) on any
// input; a regex over the whole string can go quadratic (each failed match start rescans ahead).
// Times are net of each runner's startup (median time on an empty stdin), so the 1 MiB point is
// not dominated by node booting; growth = net(max)/net(min) ÷ (max/min), ≈ 1 means linear.
import { ADVERSARIAL, ensureAdversarial, ensureEmpty, MiB } from './corpus.mjs';
import { runNode, median, RUNNERS } from './runners.mjs';

/** Median startup time (ms) of each runner on an empty stdin. */
async function startupMs(names, reps) {
  const empty = ensureEmpty();
  const out = {};
  for (const name of names) {
    const ts = [];
    for (let i = 0; i < reps; i++) ts.push((await runNode(RUNNERS[name].args, empty)).ms);
    out[name] = median(ts);
  }
  return out;
}

/**
 * opts: { sizesMiB, runners, runs, timeoutMs, log }
 * Returns { startup, patterns: { [kind]: { [runner]: [{ sizeMiB, ms, netMs, nsPerByte, timeout, skipped, code }] } } }
 */
export async function runLinearity({ sizesMiB, runners, runs, timeoutMs, log }) {
  const startup = await startupMs(runners, 5);
  const patterns = {};
  for (const kind of ADVERSARIAL) {
    patterns[kind] = Object.fromEntries(runners.map((r) => [r, []]));
    const dead = new Set(); // runners that timed out on a smaller size of this pattern
    for (const sizeMiB of sizesMiB) {
      const { file } = ensureAdversarial(kind, sizeMiB * MiB);
      const bytes = sizeMiB * MiB;
      for (const name of runners) {
        if (dead.has(name)) {
          // A run that timed out at size s would take longer at 2s; do not burn another timeout.
          patterns[kind][name].push({ sizeMiB, skipped: true });
          continue;
        }
        const ts = [];
        let point = null;
        for (let i = 0; i < runs; i++) {
          const r = await runNode(RUNNERS[name].args, file, { timeoutMs });
          if (r.timedOut) { point = { sizeMiB, timeout: true, ms: timeoutMs }; dead.add(name); break; }
          if (r.code !== 0) { point = { sizeMiB, error: `exit ${r.code}${r.signal ? ` ${r.signal}` : ''}`, ms: r.ms }; break; }
          ts.push(r.ms);
          // Slow points are already far above timer noise; one sample is enough there.
          if (r.ms > 3000) break;
        }
        if (!point) {
          const ms = median(ts);
          const netMs = Math.max(ms - startup[name], 0.001);
          point = { sizeMiB, ms, netMs, nsPerByte: (netMs * 1e6) / bytes };
        }
        patterns[kind][name].push(point);
        log?.(`  ${kind} ${sizeMiB} MiB ${name}: ${point.timeout ? 'timeout' : point.error ?? `${point.ms.toFixed(0)} ms`}`);
      }
    }
  }
  return { startup, patterns };
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
