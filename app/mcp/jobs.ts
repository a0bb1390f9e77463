import type { CaptureEnvelope } from '../capture';
import { formatBytes } from '../capture/render';
import type { CaptureObserver } from '../capture/live-feed';
import type { ToolCall, ToolContext } from './tool';

/** How often a call that waits on a running capture tells the client it is still alive. */
export const PROGRESS_MS = 1000;
/** Finished background captures remembered per server (for `wait`); older ones are read from the vault. */
const KEEP_FINISHED = 64;

/** A capture this server runs: its envelope once it ends, and its running counts meanwhile. */
export interface CaptureJob {
  readonly id: string;
  readonly startedAt: number;
  readonly bytes: { stdout: number; stderr: number };
  done: boolean;
  readonly result: Promise<CaptureEnvelope>;
}

const JOBS = new WeakMap<ToolContext, Map<string, CaptureJob>>();

/** The captures a server (its context) runs or ran in the background, by record id. */
export function captureJobs(ctx: ToolContext): Map<string, CaptureJob> {
  let jobs = JOBS.get(ctx);
  if (!jobs) JOBS.set(ctx, (jobs = new Map()));
  return jobs;
}

/** Remembers a job; forgets the oldest finished ones past the bound. */
export function addJob(ctx: ToolContext, job: CaptureJob): void {
  const jobs = captureJobs(ctx);
  jobs.set(job.id, job);
  for (const [id, j] of jobs) {
    if (jobs.size <= KEEP_FINISHED) break;
    if (j.done) jobs.delete(id);
  }
}

/** An observer that counts a capture's raw bytes per stream (what progress messages say). */
export function byteCounter(bytes: { stdout: number; stderr: number }): CaptureObserver {
  return { chunk: (c) => void (bytes[c.stream] += c.length), textLimit: 0 };
}

/**
 * Sends a progress notification every PROGRESS_MS while `work` runs, when the client asked for
 * progress: clients that reset their request timeout on progress keep waiting for a long command.
 * The message is Airlock's own (elapsed time and byte counts), never the command's output.
 */
export async function withProgress<T>(call: ToolCall | undefined, startedAt: number, bytes: { stdout: number; stderr: number } | null, work: Promise<T>): Promise<T> {
  const progress = call?.progress;
  if (!progress) return work;
  let last = 0;
  const tick = (): void => {
    const elapsed = Math.max(last + 1, Math.round(performance.now() - startedAt));
    last = elapsed;
    const counts = bytes ? `; stdout ${formatBytes(bytes.stdout)}, stderr ${formatBytes(bytes.stderr)} so far` : '';
    void progress(elapsed, `running for ${(elapsed / 1000).toFixed(0)} s${counts}`).catch(() => undefined);
  };
  const timer = setInterval(tick, PROGRESS_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
