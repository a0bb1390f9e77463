// The segmented build in worker threads (build-snap.ts, build-merge.ts): this thread runs segment 0
// (hashing what it reads, then the rest of the file), one worker thread per later segment runs
// that segment; then their page records, checkpoints, minimap and reports are spliced into what
// one run writes. Every run shares the snapshot table, the cancel flag and an abort flag a failing
// run raises so that the others stop too. Only an index whose pages are replayed is segmented: one
// that stores every page is small.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { IndexRun, outcomeBuffers, type RunOutcome } from './build-index-run';
import { mergeRuns } from './build-merge';
import { BuildCancelled } from './build-run';
import { planSegments, SnapshotTable } from './build-snap';
import { buildIndex, fileSize, finishIndex, firstRunFiles, hashFile, laterRunSpec, type BuildOptions, type BuildResult } from './build';
import { trace } from './trace';

/** Below this many bytes one run is faster than starting threads. */
export const MIN_PARALLEL_BYTES = 16 << 20;

/** How long a run past its segment waits for the owner of a boundary (it is normally there already). */
const WAIT_MS = 10_000;

/**
 * Segment 0's share of the pages, times the segments: it also hashes the rest of the file (SHA-256
 * costs ~10% of a parse here), the others start a thread first (~0.15 s).
 */
const FIRST_SHARE = 0.92;

/** Options of a segment's run in a worker thread (plain data). */
export interface SegmentInput {
  readonly options: Omit<BuildOptions, 'onProgress' | 'shouldCancel'>;
  readonly index: number;
  readonly starts: readonly number[];
  readonly table: { status: SharedArrayBuffer; fields: SharedArrayBuffer };
  readonly pages: number;
  /** Float64 [bytes done, spans] per segment. */
  readonly progress: SharedArrayBuffer;
  /** Int32 [cancel (main's flag)]. */
  readonly cancel: SharedArrayBuffer;
  /** Int32 [abort]: raised by a run that failed. */
  readonly abort: SharedArrayBuffer;
  /** @internal Tests: this run fails after its first page (a failing worker must leave nothing behind). */
  readonly failForTest?: boolean;
}

export type SegmentMessage =
  | { readonly type: 'segment'; readonly outcome: RunOutcome }
  | { readonly type: 'cancelled' }
  | { readonly type: 'error'; readonly message: string };

export interface ParallelOptions {
  /** Worker script: the index worker bundle (worker.ts), which also runs segments. */
  readonly script: string;
  readonly cancel: SharedArrayBuffer;
  readonly minParallelBytes?: number;
  /** Share of the pages segment 0 takes (default FIRST_SHARE / segments). */
  readonly firstShare?: number;
  /** @internal Tests: the run of this segment fails. */
  readonly failSegmentForTest?: number;
}

/** Runs one later segment (in its worker thread) and returns its outcome. */
export function runSegmentInput(input: SegmentInput): RunOutcome {
  const cancel = new Int32Array(input.cancel);
  const abort = new Int32Array(input.abort);
  const progress = new Float64Array(input.progress);
  const k = input.index;
  const o: BuildOptions = { ...input.options, shouldCancel: () => Atomics.load(cancel, 0) !== 0 || Atomics.load(abort, 0) !== 0 };
  const table = new SnapshotTable(input.pages, input.table);
  const run = new IndexRun(o, laterRunSpec(k, input.starts, table, WAIT_MS));
  try {
    run.run((pos) => {
      if (input.failForTest) throw new Error('segment run failed (test)');
      progress[2 * k] = pos - run.start;
      progress[2 * k + 1] = run.spans;
    });
    return run.outcome();
  } catch (err) {
    if (!(err instanceof BuildCancelled)) Atomics.store(abort, 0, 1);
    throw err;
  } finally {
    run.dispose();
  }
}

export { outcomeBuffers };

/** Builds the index with `o.segments` runs in parallel threads (one run for a small file, or one that stores every page). */
export async function buildIndexParallel(o: BuildOptions, p: ParallelOptions): Promise<BuildResult> {
  const started = performance.now();
  const size = fileSize(o.rawPath);
  const n = o.storeAll || size < (p.minParallelBytes ?? MIN_PARALLEL_BYTES) ? 1 : o.segments ?? 1;
  const starts = planSegments(size, o.pageBytes, n, p.firstShare ?? FIRST_SHARE / n);
  if (starts.length === 1) return buildIndex({ ...o, segments: 1 });

  const pages = Math.ceil(size / o.pageBytes);
  const table = new SnapshotTable(pages, undefined, true);
  const progressBuf = new SharedArrayBuffer(16 * starts.length);
  const progress = new Float64Array(progressBuf);
  const abortBuf = new SharedArrayBuffer(4);
  const abort = new Int32Array(abortBuf);
  const cancel = new Int32Array(p.cancel);
  const workers: Worker[] = [];
  const { onProgress, shouldCancel, ...plain } = o;
  void shouldCancel;
  const failed: { error: Error | null } = { error: null };
  const spawn = (data: unknown): Promise<RunOutcome> => {
    const w = new Worker(p.script, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    workers.push(w);
    return new Promise<RunOutcome>((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        // A run that stopped because another failed is not the build's failure.
        if (!(err instanceof BuildCancelled)) failed.error ??= err;
        Atomics.store(abort, 0, 1);
        reject(err);
      };
      w.on('message', (m: SegmentMessage) => {
        if (settled) return;
        if (m.type === 'segment') {
          settled = true;
          resolve(m.outcome);
        } else if (m.type === 'cancelled') fail(new BuildCancelled());
        else if (m.type === 'error') fail(new Error(m.message));
      });
      w.on('error', (err) => fail(err));
      w.on('exit', (code) => fail(new Error(`index segment worker exited with code ${code}`)));
    });
  };

  const pending: Promise<RunOutcome>[] = [];
  let first: IndexRun | null = null;
  const files = firstRunFiles(o);
  try {
    for (let k = 1; k < starts.length; k++) {
      const input: SegmentInput = {
        options: plain, index: k, starts, table: table.buffers as SegmentInput['table'], pages, progress: progressBuf, cancel: p.cancel, abort: abortBuf,
        failForTest: p.failSegmentForTest === k,
      };
      pending.push(spawn({ airlockArtifactSegment: input }));
    }
    // Nothing is lost while this thread runs: a rejection is awaited below.
    for (const x of pending) x.catch(() => undefined);
    const hash = o.verifyDigest === false ? null : createHash('sha256');
    const report = (): void => {
      let bytes = 0;
      let spans = 0;
      for (let k = 0; k < starts.length; k++) {
        bytes += progress[2 * k];
        spans += progress[2 * k + 1];
      }
      onProgress?.(Math.min(size, bytes), spans);
    };
    const run0Cancelled = () => Atomics.load(cancel, 0) !== 0 || Atomics.load(abort, 0) !== 0;
    const run0 = new IndexRun({ ...o, shouldCancel: run0Cancelled }, { index: 0, starts, table, hash, stored: null, checkpoints: files.checkpoints, waitMs: WAIT_MS });
    first = run0;
    // A BuildCancelled from here, when nobody cancelled, means another run failed: the catch below
    // reports that failure.
    run0.run((pos) => {
      progress[0] = pos;
      progress[1] = run0.spans;
      report();
    });
    // It hashed what it read; the rest of the file is read for the digest while the others run.
    if (hash && run0.stopAt !== null) hashFile(o.rawPath, run0.stopAt, size, hash, run0Cancelled);
    const timer = setInterval(report, 50);
    let outcomes: RunOutcome[];
    try {
      outcomes = [undefined as unknown as RunOutcome, ...(await Promise.all(pending))];
    } finally {
      clearInterval(timer);
    }
    trace?.(`segments and digest done: ${outcomes.slice(1).map((x) => x.stopAt).join(',')}`);
    report();
    if (Atomics.load(cancel, 0) !== 0) throw new BuildCancelled();
    return finishIndex(o, run0, mergeRuns(run0, outcomes, starts, table, o.pageBytes), files, hash?.digest('hex') ?? null, started);
  } catch (err) {
    files.abandon();
    Atomics.store(abort, 0, 1);
    if (err instanceof BuildCancelled && Atomics.load(cancel, 0) === 0) {
      // Nobody cancelled: some run failed and the others stopped for it. Which message arrives
      // first is a race (a failing run raises the abort flag before its error is posted), so
      // wait for every run and report the failure, not the stop.
      await Promise.allSettled(pending);
      if (failed.error) throw failed.error;
    }
    throw err;
  } finally {
    first?.dispose();
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
