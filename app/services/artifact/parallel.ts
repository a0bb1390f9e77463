// The segmented build in worker threads (see build.ts and the README's "Parallel build"): this
// thread runs segment 0 into the index directory (hashing what it reads, then the rest of the file),
// one worker thread per later segment runs it into a private directory inside; then segment 0's
// files take the later runs' output, spliced (build.ts: finishIndex). Every run shares the snapshot
// table, the cancel flag and an abort flag a failing run raises so that the others stop too.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, rmSync, constants as fsc } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import {
  BuildCancelled, buildIndex, copyEarly, DEFAULT_MEMORY_BUDGET, finishIndexAsync, finishPlaced, hashFile, planSegments, segmentDir, SegmentRun, SnapshotTable,
  type BuildOptions, type BuildResult, type PlacePlan, type PlaceSwitch, type SegmentOutcome,
} from './build';
import { buildLazyIndex, finishLazy } from './lazy-build';
import { mergeLazy } from './lazy-merge';
import { trace } from './trace';

/** Below this many bytes one run is faster than starting threads. */
export const MIN_PARALLEL_BYTES = 16 << 20;
/** How long the machine's idle time is sampled before a build, and the idle cores a segmented build needs. */
const IDLE_PROBE_MS = 150;
const MIN_IDLE_CORES = 1.4;

/**
 * Cores other processes left idle over the next `ms` (the whole machine's idle time plus what this
 * process used meanwhile: its own start-up and collector threads would be the build's to use).
 */
export async function idleCores(ms: number): Promise<number> {
  const sum = (t: { user: number; nice: number; sys: number; idle: number; irq: number }) => t.user + t.nice + t.sys + t.idle + t.irq;
  const a = cpus();
  const own = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpus();
  const used = process.cpuUsage(own);
  const ownCores = (used.user + used.system) / 1000 / Math.max(1, performance.now() - t0);
  let idle = 0;
  let total = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    idle += b[i].times.idle - a[i].times.idle;
    total += sum(b[i].times) - sum(a[i].times);
  }
  return Math.min(b.length, (total > 0 ? (idle / total) * b.length : b.length) + ownCores);
}

/** How long a run past its segment waits for the owner of a boundary (it is normally there already). */
const WAIT_MS = 10_000;

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
  /** The last run of a placed build: the port its plan comes through (see PlacePlan). */
  readonly placePort?: MessagePort;
}

export type SegmentMessage =
  | { readonly type: 'segment'; readonly outcome: SegmentOutcome }
  | { readonly type: 'placed'; readonly switch: PlaceSwitch }
  | { readonly type: 'cancelled' }
  | { readonly type: 'error'; readonly message: string };

export interface ParallelOptions {
  /** Worker script: the index worker bundle (worker.ts), which also runs segments and the hash. */
  readonly script: string;
  readonly cancel: SharedArrayBuffer;
  readonly minParallelBytes?: number;
  /** Share of the pages segment 0 takes (its thread also hashes the rest): default 0.96 / segments. */
  readonly firstShare?: number;
  /** Bytes all later runs together keep in memory for the merge (default: DEFAULT_MEMORY_BUDGET, at most 1/8 of RAM). */
  readonly memoryBudget?: number;
  /**
   * Look at how busy the machine is first (default true): a segmented build costs ~30% more CPU
   * than one run (the overlap, the merge, a second read for the digest), so it pays only with
   * about 1.4 idle cores or more; with less it builds in one run.
   */
  readonly adaptive?: boolean;
  /**
   * With two segments, the later run writes into the index files itself once segment 0 has
   * stopped (default true; see the README's "Parallel build"); false: it hands all its output to
   * the merge.
   */
  readonly placed?: boolean;
  /** @internal Tests: the run of this segment fails. */
  readonly failSegmentForTest?: number;
}

/**
 * Segment 0's share of a lazy build, times the segments: it also hashes the rest of the file (SHA-256
 * costs ~10% of a parse here), the others start a thread first (~0.15 s).
 */
const LAZY_FIRST_SHARE = 0.92;

/** Share of the pages segment 0 takes in a placed build: it also hashes the rest and copies what the other wrote before it switched. */
const PLACED_FIRST_SHARE = 0.42;

/** Runs one later segment (in its worker thread) and returns its outcome; `post` tells of a placed run's switch. */
export function runSegmentInput(input: SegmentInput, post?: (m: SegmentMessage, transfer?: ArrayBuffer[]) => void): SegmentOutcome {
  const cancel = new Int32Array(input.cancel);
  const abort = new Int32Array(input.abort);
  const progress = new Float64Array(input.progress);
  const k = input.index;
  const o: BuildOptions = { ...input.options, shouldCancel: () => Atomics.load(cancel, 0) !== 0 || Atomics.load(abort, 0) !== 0 };
  const table = new SnapshotTable(input.pages, input.table);
  const port = input.placePort;
  const placer = port && post
    ? {
      poll: () => (receiveMessageOnPort(port)?.message as PlacePlan | undefined) ?? null,
      announce: (sw: PlaceSwitch) => post({ type: 'placed', switch: sw }, Object.values(sw.kept).flatMap((c) => c.map((x) => x.buffer as ArrayBuffer))),
    }
    : null;
  const run = new SegmentRun(o, { index: k, starts: input.starts, dir: segmentDir(o.outDir, k), mode: o.lazy ? 'lazy' : 'eager' }, table, null, WAIT_MS, placer);
  try {
    run.run((pos) => {
      if (input.failForTest) throw new Error('segment run failed (test)');
      progress[2 * k] = pos - run.start;
      progress[2 * k + 1] = run.spans;
    });
    run.closeFiles();
    trace?.(`segment ${k} files closed`);
    return run.outcome();
  } catch (err) {
    if (!(err instanceof BuildCancelled)) Atomics.store(abort, 0, 1);
    throw err;
  } finally {
    run.dispose();
  }
}

/** Builds the index with `o.segments` runs in parallel threads (one run for a small file). */
export async function buildIndexParallel(o: BuildOptions, p: ParallelOptions): Promise<BuildResult> {
  const started = performance.now();
  const fd = openSync(o.rawPath, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  let size: number;
  try {
    size = fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
  let n = size < (p.minParallelBytes ?? MIN_PARALLEL_BYTES) ? 1 : o.segments ?? 1;
  // A lazy build's segments cost little more CPU than one run (no column is merged): no probe.
  if (n > 1 && p.adaptive !== false && !o.lazy) {
    const idle = await idleCores(IDLE_PROBE_MS);
    n = idle < MIN_IDLE_CORES ? 1 : Math.min(n, Math.floor(idle + 0.6));
    trace?.(`${idle.toFixed(2)} idle cores: ${n} segment(s)`);
  }
  // A lazy build's merge copies no column: nothing for a placed run to save.
  const placed = n === 2 && p.placed !== false && !o.lazy;
  const starts = planSegments(size, o.pageBytes, n, p.firstShare ?? (placed ? PLACED_FIRST_SHARE : o.lazy ? LAZY_FIRST_SHARE / n : 0.96 / n));
  if (starts.length === 1) return (o.lazy ? buildLazyIndex : buildIndex)({ ...o, segments: 1 });

  const pages = Math.ceil(size / o.pageBytes);
  const table = new SnapshotTable(pages, undefined, true);
  const progressBuf = new SharedArrayBuffer(16 * starts.length);
  const progress = new Float64Array(progressBuf);
  const abortBuf = new SharedArrayBuffer(4);
  const abort = new Int32Array(abortBuf);
  const cancel = new Int32Array(p.cancel);
  const workers: Worker[] = [];
  const { onProgress, shouldCancel, ...rest } = o;
  void shouldCancel;
  const budget = p.memoryBudget ?? Math.min(DEFAULT_MEMORY_BUDGET, Math.floor(totalmem() / 8));
  const plain = { ...rest, memoryBudget: Math.floor(budget / (starts.length - 1)) };
  const failed: { error: Error | null } = { error: null };
  let onPlaced: ((sw: PlaceSwitch) => void) | null = null;
  const spawn = <T>(data: unknown, want: 'segment', transferList: MessagePort[] = []): Promise<T> => {
    const w = new Worker(p.script, { workerData: data, transferList, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    workers.push(w);
    return new Promise<T>((resolve, reject) => {
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
        if (m.type === want) {
          settled = true;
          resolve(m.outcome as T);
        } else if (m.type === 'placed') onPlaced?.(m.switch);
        else if (m.type === 'cancelled') fail(new BuildCancelled());
        else if (m.type === 'error') fail(new Error(m.message));
      });
      w.on('error', (err) => fail(err));
      w.on('exit', (code) => fail(new Error(`index segment worker exited with code ${code}`)));
    });
  };

  const pending: Promise<SegmentOutcome>[] = [];
  let first: SegmentRun | null = null;
  const channel = placed && starts.length === 2 ? new MessageChannel() : null;
  // The placed run's switch, or its outcome if it ended first (then the merge copies all of it).
  const switched = new Promise<PlaceSwitch | null>((resolve) => {
    onPlaced = resolve;
  });
  try {
    for (let k = 1; k < starts.length; k++) {
      mkdirSync(segmentDir(o.outDir, k), { mode: 0o700 });
      const input: SegmentInput = {
        options: plain, index: k, starts, table: table.buffers as SegmentInput['table'], pages, progress: progressBuf, cancel: p.cancel, abort: abortBuf,
        failForTest: p.failSegmentForTest === k, placePort: channel?.port2,
      };
      pending.push(spawn<SegmentOutcome>({ airlockArtifactSegment: input }, 'segment', channel ? [channel.port2] : []));
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
    const run0 = new SegmentRun(
      { ...o, shouldCancel: run0Cancelled },
      { index: 0, starts, dir: o.outDir, mode: o.lazy ? 'lazy' : 'eager' }, table, hash, WAIT_MS,
    );
    first = run0;
    trace?.('segment 0 starts');
    // A BuildCancelled from here, when nobody cancelled, means another run failed: the catch below
    // reports that failure.
    run0.run((pos) => {
      progress[0] = pos;
      progress[1] = run0.spans;
      report();
    });
    // It hashed what it read; the rest of the file is read for the digest while the others run.
    trace?.(`segment 0 stopped at ${run0.stopAt}`);
    const at = run0.stopAt;
    if (channel && at !== null && run0.lineCol.count > 0) {
      const plan: PlacePlan = {
        at, spans: run0.spans, text: run0.textBytes, lines: run0.lineCol.count, mapClosed: run0.mapCol.count, mapHas: run0.mapCol.has, cps: run0.cps,
        meanings: run0.meanings,
      };
      channel.port1.postMessage(plan);
      const timer = setInterval(report, 50);
      let sw: PlaceSwitch | null;
      try {
        sw = await Promise.race([switched, pending[0].then(() => null)]);
      } finally {
        clearInterval(timer);
      }
      if (sw) {
        trace?.('the last run switched');
        const parts = await copyEarly(o, run0, at, sw, starts, table);
        trace?.('copied what it wrote before');
        report();
        // Progress goes on while this thread hashes (the other run's bytes).
        if (hash) hashFile(o.rawPath, at, size, hash, () => {
          report();
          return run0Cancelled();
        });
        trace?.('hashed the rest');
        const timer2 = setInterval(report, 50);
        let q: SegmentOutcome;
        try {
          q = await pending[0];
        } finally {
          clearInterval(timer2);
        }
        trace?.('the last run is done');
        // Its last pages are in the progress too, before the merge (a caller may cancel on them).
        report();
        if (Atomics.load(cancel, 0) !== 0) throw new BuildCancelled();
        const result = finishPlaced(o, run0, parts, q, sw, at, hash?.digest('hex') ?? null, started);
        trace?.('placed build done');
        return result;
      }
    }
    if (hash && run0.stopAt !== null) hashFile(o.rawPath, run0.stopAt, size, hash, run0Cancelled);
    trace?.('hashed the rest');
    const timer = setInterval(report, 50);
    let outcomes: SegmentOutcome[];
    try {
      outcomes = [undefined as unknown as SegmentOutcome, ...(await Promise.all(pending))];
    } finally {
      clearInterval(timer);
    }
    trace?.(`segments and digest done: ${outcomes.slice(1).map((x) => x.stopAt).join(',')}`);
    report();
    if (Atomics.load(cancel, 0) !== 0) throw new BuildCancelled();
    if (o.lazy) {
      const result = finishLazy(o, mergeLazy(run0, outcomes, starts, table, o.pageBytes), hash?.digest('hex') ?? null, started);
      for (let k = 1; k < starts.length; k++) rmSync(segmentDir(o.outDir, k), { recursive: true, force: true });
      trace?.('lazy segments merged');
      return result;
    }
    const result = await finishIndexAsync(o, run0, outcomes, starts, table, hash?.digest('hex') ?? null, started);
    trace?.(`merged: splices ${result.splices.join(',')}`);
    return result;
  } catch (err) {
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
    channel?.port1.close();
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
