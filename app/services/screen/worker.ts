// Worker-thread entry of a screen reconstruction (jobs.ts): streams one artifact through the screen
// engine (view.ts) off main's event loop, posting progress at most every PROGRESS_MS, then the view
// or an error. Main ends the thread to cancel it; the deadline and the cancel flag let it stop by
// itself first. Bundled on its own (screen-worker.cjs): the emulator stays out of the index worker.
import { parentPort, workerData } from 'node:worker_threads';
import type { ScreenView } from '../../../shared/bridge/types';
import { screenView } from './view';

export interface ScreenTask {
  readonly path: string;
  readonly size: number;
  readonly cols: number;
  readonly rows: number;
  /** Wall-clock deadline (Date.now()). */
  readonly deadline: number;
  /** Int32 flag main sets to 1 to cancel. */
  readonly cancel: SharedArrayBuffer;
}

export type ScreenMessage =
  | { readonly type: 'progress'; readonly bytesDone: number }
  | { readonly type: 'done'; readonly view: ScreenView }
  | { readonly type: 'error'; readonly message: string };

const PROGRESS_MS = 100;

/** Runs `task`, posting with `post` (parentPort.postMessage, or a test's stand-in). */
export async function runScreenTask(task: ScreenTask, post: (m: ScreenMessage) => void): Promise<void> {
  const flag = new Int32Array(task.cancel);
  let last = 0;
  try {
    const view = await screenView(task.path, task.size, task.cols, task.rows, {
      onProgress: (bytesDone) => {
        const now = Date.now();
        if (now - last < PROGRESS_MS) return;
        last = now;
        post({ type: 'progress', bytesDone });
      },
      shouldStop: () => (Atomics.load(flag, 0) !== 0 ? 'the screen reconstruction was cancelled' : Date.now() > task.deadline ? 'the screen reconstruction ran past its time budget and was stopped' : null),
    });
    post({ type: 'done', view });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

if (parentPort && (workerData as { airlockScreen?: ScreenTask } | null)?.airlockScreen) {
  const port = parentPort;
  void runScreenTask((workerData as { airlockScreen: ScreenTask }).airlockScreen, (m) => port.postMessage(m));
}
