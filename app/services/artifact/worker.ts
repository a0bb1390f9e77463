// Worker-thread entry: builds one index (build.ts) off main's event loop. Main passes the options
// and a shared cancel flag; the worker posts progress at most every 50 ms, then `done` or `error`.
import { parentPort, workerData } from 'node:worker_threads';
import { buildIndex, BuildCancelled, type BuildOptions } from './build';

export interface WorkerInput extends Omit<BuildOptions, 'onProgress' | 'shouldCancel'> {
  /** Int32 flag: main stores 1 to cancel. */
  readonly cancel: SharedArrayBuffer;
}

export type WorkerMessage =
  | { readonly type: 'progress'; readonly bytesDone: number; readonly spans: number }
  | { readonly type: 'done'; readonly manifest: unknown }
  | { readonly type: 'cancelled' }
  | { readonly type: 'error'; readonly message: string };

/** Runs a build with the protocol above; `post` is parentPort.postMessage (or a test's stand-in). */
export function runWorkerBuild(input: WorkerInput, post: (m: WorkerMessage) => void): void {
  const flag = new Int32Array(input.cancel);
  let last = 0;
  try {
    const { manifest } = buildIndex({
      ...input,
      shouldCancel: () => Atomics.load(flag, 0) !== 0,
      onProgress: (bytesDone, spans) => {
        const now = performance.now();
        if (now - last < 50) return;
        last = now;
        post({ type: 'progress', bytesDone, spans });
      },
    });
    post({ type: 'done', manifest });
  } catch (err) {
    if (err instanceof BuildCancelled) post({ type: 'cancelled' });
    else post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

if (parentPort && workerData && (workerData as { airlockArtifactIndex?: boolean }).airlockArtifactIndex) {
  const port = parentPort;
  runWorkerBuild(workerData as WorkerInput, (m) => port.postMessage(m));
}
