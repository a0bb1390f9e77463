// The `airlock` executable (dist/airlock.mjs, not bundled): `sanitize`, which runs in pipelines
// where start-up counts, and `inspect` go to their one-file builds; everything else to the full
// CLI, whose commands load on demand. All are built beside this file by scripts/build.mjs.
import { statSync } from 'node:fs';

const command = process.argv[2];
if (command === 'inspect') await prestartDumpThread(process.argv.slice(3));
const entry = command === 'sanitize' ? './sanitize-main.mjs' : command === 'inspect' ? './inspect-main.mjs' : './cli.mjs';
await import(entry);

/**
 * A large dump is formatted on a second thread (app/cli/inspect/threaded-dump.ts), which takes
 * ~40 ms to start: started here, before the inspect bundle loads, when the arguments look like a
 * dump of a whole file of 8 MiB or more, it is ready when the command wants it. The command adopts it
 * (from the global below) or ends it; the arguments are only glanced at here, the command parses them.
 */
async function prestartDumpThread(args: string[]): Promise<void> {
  // (A range, --length, is usually small: the command starts a thread itself if it is not.)
  if (process.env.AIRLOCK_INSPECT_THREADS === '1' || ['--summary-only', '--json', '--length'].some((f) => args.includes(f))) return;
  const values = new Set(['--offset', '--length', '--width', '--color', '--vault']);
  const file = args.find((a, i) => !a.startsWith('--') && !values.has(args[i - 1]));
  try {
    // (8 MiB: THREAD_MIN_BYTES of threaded-dump.ts, written out because this file is not bundled.)
    if (file === undefined || file === '-' || file.startsWith('restricted:') || statSync(file).size < 8 << 20) return;
    // (Loaded here only: the other commands do not pay for it.)
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(new URL('./inspect-worker.cjs', import.meta.url), { execArgv: [] });
    worker.unref();
    worker.on('error', () => undefined);
    (globalThis as Record<symbol, unknown>)[Symbol.for('airlock.inspect.dumpThread')] = worker;
  } catch {
    // No thread now: the command starts one if it wants it.
  }
}
