import { parentPort, workerData } from 'node:worker_threads';
import { isErrno } from '../node/fs-atomic';
import { runDumpThread, type DumpThreadData } from './inspect/dump-thread';
import { RingFailure, SlotRing } from './inspect/slot-ring';

// The dump thread of `airlock inspect` (dist/inspect-worker.cjs; see inspect/threaded-dump.ts):
// formats the dump while the main thread parses. A failure stops the ring first (the main thread
// may be waiting for a slot), then says what it was.
// Started before the command knew what to dump (see airlock.ts), it is told in its first message.
void main();

async function main(): Promise<void> {
  const data = (workerData as DumpThreadData | null) ?? (await new Promise<DumpThreadData>((resolve) => parentPort?.once('message', resolve)));
  try {
    await runDumpThread(data);
    parentPort?.postMessage({ done: true });
  } catch (err) {
    const closed = isErrno(err, 'EPIPE');
    new SlotRing(data.buffer).fail(closed ? RingFailure.OutputClosed : RingFailure.Error);
    parentPort?.postMessage({ error: closed ? 'EPIPE' : err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
}
