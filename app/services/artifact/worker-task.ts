import { Worker, type WorkerOptions } from 'node:worker_threads';

/** How a task's message handler ends it. */
export interface TaskEnd<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

/**
 * Runs a worker thread as one task: `onMessage` ends it (resolve or reject) when the worker says
 * it is done, or lets it go on (progress); an error, or an exit before that, fails it with a
 * message naming `what`. Whichever comes first settles the task, and the worker is then ended.
 */
export function workerTask<T, M>(script: string, options: WorkerOptions, what: string, onMessage: (message: M, end: TaskEnd<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(script, options);
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      f();
      void worker.terminate();
    };
    const end: TaskEnd<T> = { resolve: (v) => settle(() => resolve(v)), reject: (e) => settle(() => reject(e)) };
    worker.on('message', (m: M) => onMessage(m, end));
    worker.on('error', (err) => end.reject(err));
    worker.on('exit', (code) => end.reject(new Error(`${what} exited with code ${code}`)));
  });
}
