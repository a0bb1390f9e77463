// Preloaded (`node --import bench/cpu-probe.mjs ...`) into every benchmarked process. On exit it
// writes this process's own CPU time (user+system, all threads) and peak RSS to $BENCH_CPU_FILE.
// Why: the box is shared (2 cores, other jobs), and wall time then includes time spent waiting
// for a core; CPU time does not, so it is the steadier number for ratios and for linearity.
// It touches nothing else: no stdout/stderr output, no change to the program's exit code.
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Peak resident set of this program, KiB. Not resourceUsage().maxRSS on Linux: that survives exec,
 * so a child spawned by a large parent (the bench holds corpora and captured output) reports the
 * parent's size from the moment between fork and exec. VmHWM belongs to the address space exec made.
 */
function peakRssKiB() {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // Not Linux: fall back below.
  }
  return process.resourceUsage().maxRSS;
}

const out = process.env.BENCH_CPU_FILE;
if (out) {
  process.on('exit', () => {
    const u = process.resourceUsage(); // CPU in microseconds
    try {
      writeFileSync(out, `${u.userCPUTime} ${u.systemCPUTime} ${peakRssKiB()}\n`);
    } catch {
      // Best effort: a missing report only means this run has no CPU figure.
    }
  });
}
