// Preloaded (`node --import bench/cpu-probe.mjs ...`) into every benchmarked process. On exit it
// writes this process's own CPU time (user+system, all threads) and peak RSS to $BENCH_CPU_FILE.
// Why: the box is shared (2 cores, other jobs), and wall time then includes time spent waiting
// for a core; CPU time does not, so it is the steadier number for ratios and for linearity.
// It touches nothing else: no stdout/stderr output, no change to the program's exit code.
import { writeFileSync } from 'node:fs';

const out = process.env.BENCH_CPU_FILE;
if (out) {
  process.on('exit', () => {
    const u = process.resourceUsage(); // CPU in microseconds, maxRSS in KiB
    try {
      writeFileSync(out, `${u.userCPUTime} ${u.systemCPUTime} ${u.maxRSS}\n`);
    } catch {
      // Best effort: a missing report only means this run has no CPU figure.
    }
  });
}
