// Screen reconstructions for the viewer (`getScreen`): each runs in a worker thread of its own
// (worker.ts), streaming the artifact from its start through the engine, with progress, a time
// budget and cancellation; main only keeps the job's state. A job is shared by the windows that
// asked for the same artifact and terminal size, and stops when the last of them withdraws
// (`cancelScreen`, or the window closes). The result is kept for the last few sizes asked: it
// depends on the size through and through (line wrapping, scrolling, every cursor move), so no
// part of one size's run serves another; the run itself holds memory bounded by the terminal's
// cells, not by the artifact (engine.ts), which is why there is no size limit.
import { Worker } from 'node:worker_threads';
import type { ArtifactRef, ScreenStatus, ScreenView } from '../../../shared/bridge/types';
import { BridgeError } from '../bridge/errors';
import { resolveScreenWorkerScript } from '../artifact/worker-script';
import { runScreenTask, type ScreenMessage, type ScreenTask } from './worker';

/**
 * How long a reconstruction of `size` bytes may run: 10 minutes and 4 s a MiB (the engine is
 * linear; its slowest input measured here, SGR-dense short lines, ran at ~0.5 MiB/s: a 1 GiB log
 * of them ~35 minutes, within its 78). A bound on a runaway, not a deadline a user waits for:
 * the run shows its progress and can be cancelled.
 */
export function defaultScreenBudgetMs(size: number): number {
  return 10 * 60_000 + Math.ceil(size / (1 << 20)) * 4_000;
}
/** Finished views kept (per artifact and terminal size). */
const MAX_KEPT = 4;
/** Jobs running at once (each is a thread with two emulators). */
const MAX_RUNNING = 2;

interface Job {
  readonly key: string;
  readonly ref: ArtifactRef;
  readonly cols: number;
  readonly rows: number;
  state: ScreenStatus['state'];
  bytesDone: number;
  readonly totalBytes: number;
  readonly started: number;
  elapsedMs: number;
  error: string | null;
  view: ScreenView | null;
  readonly windows: Set<number>;
  readonly cancel: Int32Array;
  stop(why: string): void;
}

export class ScreenJobs {
  private readonly jobs = new Map<string, Job>();

  /** `budgetMs`: every run's budget (default: defaultScreenBudgetMs of its artifact's size). */
  constructor(private readonly o: { rawPath(sha: string): string; inline: boolean; budgetMs?: number; script?: string }) {}

  /**
   * Starts (or joins) the reconstruction of `ref` (`sha`, `size` bytes) at `cols` x `rows` for
   * `windowId`. A run that failed or was stopped is reported once to each window that was
   * following it; asked again, it starts over.
   */
  get(ref: ArtifactRef, sha: string, size: number, t: { cols: number; rows: number }, windowId: number): ScreenStatus {
    const key = `${sha}:${t.cols}x${t.rows}`;
    let job = this.jobs.get(key);
    if (job && (job.state === 'failed' || job.state === 'cancelled')) {
      if (job.windows.delete(windowId)) return status(job);
      this.jobs.delete(key);
      job = undefined;
    }
    if (!job) {
      const running = [...this.jobs.values()].filter((j) => j.state === 'running').length;
      if (running >= MAX_RUNNING) throw new BridgeError('unavailable', `${running} screen reconstructions are running; ask again when one is done or cancelled`);
      job = this.start(key, ref, this.o.rawPath(sha), size, t);
    } else {
      // Most recently asked last, so the oldest finished view goes first.
      this.jobs.delete(key);
      this.jobs.set(key, job);
    }
    job.windows.add(windowId);
    return status(job);
  }

  /** Withdraws `windowId`'s interest; a running job nobody wants any more stops. */
  cancel(ref: ArtifactRef, sha: string, t: { cols: number; rows: number }, windowId: number): ScreenStatus {
    const job = this.jobs.get(`${sha}:${t.cols}x${t.rows}`);
    if (!job) {
      return { ref, cols: t.cols, rows: t.rows, state: 'cancelled', bytesDone: 0, totalBytes: 0, elapsedMs: 0, error: 'no screen reconstruction of that size was running', view: null };
    }
    this.withdraw(job, windowId);
    return status(job);
  }

  windowClosed(windowId: number): void {
    for (const job of this.jobs.values()) this.withdraw(job, windowId);
  }

  async close(): Promise<void> {
    for (const job of this.jobs.values()) if (job.state === 'running') job.stop('the app is closing');
    this.jobs.clear();
  }

  private withdraw(job: Job, windowId: number): void {
    if (!job.windows.delete(windowId)) return;
    if (job.windows.size === 0 && job.state === 'running') job.stop('the screen reconstruction was cancelled');
  }

  private start(key: string, ref: ArtifactRef, path: string, size: number, t: { cols: number; rows: number }): Job {
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const job: Job = {
      key, ref, cols: t.cols, rows: t.rows, state: 'running', bytesDone: 0, totalBytes: size, started: Date.now(), elapsedMs: 0, error: null, view: null,
      windows: new Set(), cancel, stop: () => undefined,
    };
    this.jobs.set(key, job);
    const budgetMs = this.o.budgetMs ?? defaultScreenBudgetMs(size);
    const task: ScreenTask = { path, size, cols: t.cols, rows: t.rows, deadline: Date.now() + budgetMs, cancel: cancel.buffer as SharedArrayBuffer };
    let finished = false;
    const finish = (m: ScreenMessage | { type: 'stopped'; message: string }): void => {
      if (finished) {
        return;
      }
      if (m.type === 'progress') {
        job.bytesDone = m.bytesDone;
        return;
      }
      finished = true;
      clearTimeout(timer);
      job.elapsedMs = Date.now() - job.started;
      if (m.type === 'done') {
        job.state = 'done';
        job.view = m.view;
        job.bytesDone = job.totalBytes;
      } else {
        job.state = m.type === 'stopped' ? 'cancelled' : 'failed';
        job.error = m.message.slice(0, 300);
      }
      this.trim();
    };
    // The worker stops itself at the deadline; past it and a grace, main ends the thread.
    const timer = setTimeout(() => job.stop('the screen reconstruction ran past its time budget and was stopped'), budgetMs + 5_000);
    timer.unref();
    if (this.o.inline) {
      job.stop = (why) => {
        Atomics.store(cancel, 0, 1);
        finish({ type: 'stopped', message: why });
      };
      void runScreenTask(task, finish);
      return job;
    }
    let worker: Worker | null = null;
    job.stop = (why) => {
      Atomics.store(cancel, 0, 1);
      void worker?.terminate();
      finish({ type: 'stopped', message: why });
    };
    void resolveScreenWorkerScript(this.o.script).then((script) => {
      if (finished) return;
      worker = new Worker(script, { workerData: { airlockScreen: task }, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
      worker.on('message', (m: ScreenMessage) => {
        finish(m);
        if (m.type !== 'progress') void worker?.terminate();
      });
      worker.on('error', (err) => finish({ type: 'error', message: err.message }));
      worker.on('exit', (code) => finish({ type: 'error', message: `the screen worker exited with code ${code}` }));
    }, (err: unknown) => finish({ type: 'error', message: err instanceof Error ? err.message : String(err) }));
    return job;
  }

  /** Drops the oldest finished jobs past MAX_KEPT. */
  private trim(): void {
    const finished = [...this.jobs.values()].filter((j) => j.state !== 'running');
    for (let k = 0; k < finished.length - MAX_KEPT; k++) this.jobs.delete(finished[k].key);
  }
}

function status(job: Job): ScreenStatus {
  return {
    ref: job.ref, cols: job.cols, rows: job.rows, state: job.state, bytesDone: job.bytesDone, totalBytes: job.totalBytes,
    elapsedMs: job.state === 'running' ? Date.now() - job.started : job.elapsedMs, error: job.error, view: job.view,
  };
}
