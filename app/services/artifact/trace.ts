// AIRLOCK_INDEX_TRACE=1: timing lines of an index build on stderr, written synchronously (a worker
// thread's console output is lost when it is terminated), with the calling thread's CPU time.
import { readFileSync, writeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { ioTimes } from './columns';

/** CPU ms of the calling thread (Linux; 0 elsewhere). */
export function threadCpuMs(): number {
  try {
    const s = readFileSync('/proc/thread-self/stat', 'latin1');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

export const trace: ((what: string) => void) | null = process.env.AIRLOCK_INDEX_TRACE
  ? (what) => {
    writeSync(2, `[index t${threadId}] at ${Date.now() % 1_000_000} cpu ${threadCpuMs()} io ${Math.round(ioTimes.write)}/${Math.round(ioTimes.crc)}/${Math.round(ioTimes.bytes / 1048576)}M ${what}\n`);
  }
  : null;
