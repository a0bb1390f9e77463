import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { ParserLimits } from '../../shared/parser';
import type { CrMode } from '../../shared/sanitize';
import type { RawWriter } from '../vault';
import { groupAlive } from './process-group';
import { spawnChild, type ChildExit, type RunningChild } from './child';
import { ChunkLog, STREAMS, type StreamName } from './chunk-log';
import { SandboxError, type ChildLaunch } from './sandbox';
import { SharedTerminal, type ReadChunk } from './shared-terminal';
import { StreamCapture, type StreamRedactionOptions, type StreamResult } from './stream-capture';
import { LiveFeed, type CaptureObserver } from './live-feed';

/** Default hard cap on raw bytes captured, both streams together. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** Default bound on sanitized text handed to the agent, per stream. */
export const DEFAULT_MAX_TEXT = 1024 * 1024;
/**
 * Most sanitized text a capture may keep per stream: two streams of it (escaped as JSON), the
 * chunk log and the command line stay below the vault's per-record bound (MAX_RECORD_BYTES).
 */
export const MAX_TEXT_CEILING = 4 * 1024 * 1024;
/** Time between SIGTERM and SIGKILL to the child's process group. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** How long pipes may stay open after the child exited (a background grandchild holding them). */
export const DEFAULT_DRAIN_GRACE_MS = 2000;
/** After the kill sequence, how long to wait for the pipes to report EOF before cutting them. */
const POST_KILL_DRAIN_MS = 500;

/** Why Airlock stopped the child rather than letting it finish. */
export type TerminationReason = 'max-bytes' | 'timeout' | 'interrupted' | 'pipes-held-open' | 'left-running' | 'capture-failed';

/** Airlock ended the run: why, and which signals went to the process group. */
export interface Termination {
  readonly reason: TerminationReason;
  readonly signals: readonly NodeJS.Signals[];
}

/** What {@link runCapture} needs. */
export interface CaptureOptions {
  /** The command and its arguments; argv[0] is looked up on the child's PATH. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's whole environment (see childEnvironment). */
  readonly env: NodeJS.ProcessEnv;
  readonly maxBytes: number;
  readonly maxText: number;
  readonly cr: CrMode;
  readonly limits: Partial<ParserLimits>;
  /** One fresh RawWriter per stream (normally `vault.createRawWriter()`). */
  readonly createRawWriter: () => RawWriter;
  /** Stop the child after this long (default: no limit). */
  readonly timeoutMs?: number;
  readonly killGraceMs?: number;
  readonly drainGraceMs?: number;
  /** Aborting stops the child (SIGTERM, then SIGKILL) and completes the capture as 'interrupted'. */
  readonly signal?: AbortSignal;
  /**
   * Takes the vault's retention lock (normally `() => vault.holdRetentionLock()`), called just
   * before the raw writers commit. On success its release function is returned as
   * `outcome.releaseRetentionLock`, for the caller to call once the record is written; on
   * failure runCapture releases it itself.
   */
  readonly holdRetentionLock?: () => Promise<() => Promise<void>>;
  /**
   * Says what to spawn instead of `argv` (SandboxPlan.launch: the bwrap wrapper); `argv` stays
   * what the envelope shows. A SpawnError it throws is reported like a failed spawn.
   */
  readonly launch?: (argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv) => Promise<ChildLaunch>;
  /** The redaction stage after the sanitizer (default: the built-in rules, replacing). */
  readonly redaction?: StreamRedactionOptions;
  /** Follows the capture as it runs: each chunk's settled text, early text of unfinished lines. */
  readonly observer?: CaptureObserver;
}

/** Everything a capture produced; the envelope and the vault record are built from it. */
export interface CaptureOutcome {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly pid: number;
  readonly startedAt: Date;
  /** From spawn to exit with both pipes closed. */
  readonly durationMs: number;
  readonly exit: ChildExit;
  /** null when the child ended on its own. */
  readonly termination: Termination | null;
  /** Some stream was cut before its end (the --max-bytes cap, or pipes cut after a kill). */
  readonly truncated: boolean;
  /** Raw bytes captured, both streams (≤ maxBytes). */
  readonly totalBytes: number;
  readonly streams: Readonly<Record<StreamName, StreamResult>>;
  readonly chunkLog: ChunkLog;
  readonly maxBytes: number;
  readonly maxText: number;
  /** The sandbox's account of a path it does not show (ChildLaunch.hint), when one ran the command. */
  readonly viewHint?: (path: string) => string | null;
  /**
   * Present when `holdRetentionLock` was given: the lock is still held (so prune cannot delete
   * the committed raw bytes before their record exists). Call it, in a finally, after writing the record.
   */
  readonly releaseRetentionLock?: () => Promise<void>;
}

interface StreamState {
  readonly name: StreamName;
  readonly pipe: Readable;
  readonly capture: StreamCapture;
  ended: boolean;
  closed: boolean;
  /** Paused until the raw writer has room again. */
  rawWait: boolean;
  readonly whenClosed: Promise<void>;
}

/** A chunk stored in the vault and waiting to be sanitized, with what the log says about it. */
interface Pending {
  readonly state: StreamState;
  readonly bytes: Uint8Array;
  /** Raw offset in its stream. */
  readonly offset: number;
  /** Arrival, ms since the start. */
  readonly tMs: number;
}

/** Bytes sanitized per turn of the event loop before the pipes are read again. */
const SLICE_BYTES = 256 * 1024;
/**
 * Stored but not yet sanitized bytes at which both pipes pause, and the level they resume at:
 * enough to keep the pipes drained while the sanitizer catches up, small enough that a flood
 * stays a few staging buffers in memory (capture-limits.test.ts bounds the growth).
 */
const QUEUE_MAX_BYTES = 4 * 1024 * 1024;
const QUEUE_LOW_BYTES = 2 * 1024 * 1024;

/**
 * Runs one command and captures both streams into the vault's raw writers and two sanitizers.
 * Rejects with SpawnError when the command cannot start (no writer has been created then) and
 * with the underlying error when the vault cannot take the bytes (both writers aborted, the child
 * stopped). Raw bytes never leave this function except as committed vault digests.
 */
export async function runCapture(options: CaptureOptions): Promise<CaptureOutcome> {
  const startedAt = new Date();
  const t0 = performance.now();
  const launch: ChildLaunch = options.launch ? await options.launch(options.argv, options.cwd, options.env) : { argv: options.argv, extraStdio: [] };
  let child: RunningChild;
  try {
    child = await spawnChild(launch.argv, { cwd: options.cwd, env: options.env, extraStdio: launch.extraStdio });
  } finally {
    launch.release?.();
  }
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  // The sandbox waits for what it needs from outside (its network) before the command runs.
  let undoLaunch = async (): Promise<void> => undefined;
  if (launch.started) {
    // Until the command runs, stderr can only be bwrap's own: kept to say why a setup failed.
    let setupErr = '';
    const onSetupErr = (d: Buffer): void => void (setupErr = (setupErr + d.toString('utf8')).slice(-300));
    child.stderr.on('data', onSetupErr);
    try {
      undoLaunch = await launch.started(child);
    } catch (err) {
      await child.terminate(killGraceMs);
      child.stdout.destroy();
      child.stderr.destroy();
      const why = setupErr.replace(/[^\x20-\x7e]+/g, ' ').trim();
      throw new SandboxError(`the sandbox could not be set up, so nothing ran: ${String((err as Error)?.message ?? err)}${why ? ` (${why})` : ''}`);
    } finally {
      // The collector's listeners are attached before the event loop turns again: nothing is lost.
      child.stderr.off('data', onSetupErr);
    }
  }
  const log = new ChunkLog();
  const states: StreamState[] = [];
  const feed = options.observer ? new LiveFeed(options.observer, () => performance.now() - t0) : null;
  try {
    const tempFiles: Partial<Record<StreamName, string | null>> = {};
    for (const name of STREAMS) {
      const writer = options.createRawWriter();
      tempFiles[name] = writer.tempFile ?? null;
      const capture = new StreamCapture(name, writer, options, options.maxText, options.redaction);
      feed?.add(name, capture);
      states.push(openStream(name, name === 'stdout' ? child.stdout : child.stderr, capture));
    }
    options.observer?.rawFiles?.(tempFiles as Record<StreamName, string | null>);
  } catch (err) {
    feed?.close();
    // A writer could not be set up: stop the child that already runs and drop what was opened.
    await Promise.all(states.map((s) => s.capture.abort().catch(() => undefined)));
    child.stdout.destroy();
    child.stderr.destroy();
    await child.terminate(killGraceMs);
    throw err;
  }
  // One terminal reads both streams: text written into the other's open sequence is withheld.
  const terminal = new SharedTerminal(states.map((st) => st.capture), options);

  let total = 0;
  let stopped = false;
  let failure: unknown = null;
  let termination: { reason: TerminationReason } | null = null;
  let killing: Promise<void> | null = null;

  /** Stops reading: pipes are destroyed, so the writers get EPIPE/SIGPIPE and nothing more is buffered. */
  const stopReading = (): void => {
    stopped = true;
    for (const s of states) if (!s.closed) s.pipe.destroy();
  };
  const terminate = (reason: TerminationReason): void => {
    if (termination) return;
    termination = { reason };
    killing = child.terminate(killGraceMs).then(async () => {
      // Whatever still holds a pipe now is outside the group (it called setsid): stop waiting for it.
      if (states.every((s) => s.closed)) return;
      await sleep(POST_KILL_DRAIN_MS);
      stopReading();
    });
  };
  const fail = (err: unknown): void => {
    failure ??= err;
    stopReading();
    terminate('capture-failed');
  };
  // The observer's own backlog (a terminal that is not read, a slow disk) pauses the pipes too.
  let observerWait = false;

  // Raw bytes are stored the moment they arrive; sanitizing runs behind, in slices between which
  // the event loop reads the pipes again. So the pipes are emptied as fast as the child fills them
  // (a pipe holds little, and a child that waits for room waits for a core on a busy machine too),
  // instead of once per chunk sanitized. Chunks are sanitized, and logged, in arrival order.
  const queue: Pending[] = [];
  let queueHead = 0;
  let queued = 0;
  let queueFull = false;
  let sliceScheduled = false;
  /** Resumes a pipe paused for either reason once neither holds. */
  const maybeResume = (state: StreamState): void => {
    if (!stopped && !queueFull && !observerWait && !state.rawWait) state.pipe.resume();
  };
  /** The chunks read after queue[from - 1] and not sanitized yet, as SharedTerminal looks at them. */
  function* readAhead(from: number): Generator<ReadChunk> {
    for (let i = from; i < queue.length; i++) yield { stream: queue[i].state.name, bytes: queue[i].bytes, tMs: queue[i].tMs };
  }
  /** Sanitizes queued chunks (up to `budget` bytes) and logs them with their arrival facts. */
  const sanitizeQueued = (budget: number): void => {
    while (queueHead < queue.length && budget > 0) {
      const c = queue[queueHead];
      queue[queueHead++] = undefined as unknown as Pending;
      const textOffset = c.state.capture.textOffset;
      const textLength = c.state.capture.sanitize(c.bytes, terminal.before(c.state.name, c.bytes, { tMs: c.tMs, ahead: readAhead(queueHead) }));
      terminal.after(c.state.name, c.bytes, c.tMs);
      const seq = log.add(c.state.name, c.offset, c.bytes.length, textOffset, textLength, c.tMs);
      feed?.chunk({ seq, stream: c.state.name, offset: c.offset, length: c.bytes.length, textOffset, textLength, tMs: c.tMs }, c.bytes);
      queued -= c.bytes.length;
      budget -= c.bytes.length;
    }
    if (queueHead === queue.length) {
      queue.length = 0;
      queueHead = 0;
    }
    if (queueFull && queued <= QUEUE_LOW_BYTES) {
      queueFull = false;
      for (const st of states) maybeResume(st);
    }
    const wait = observerWait ? undefined : options.observer?.wait?.();
    if (wait) {
      observerWait = true;
      for (const st of states) st.pipe.pause();
      wait.then(
        () => {
          observerWait = false;
          for (const st of states) maybeResume(st);
        },
        fail,
      );
    }
  };
  const slice = (): void => {
    sliceScheduled = false;
    try {
      sanitizeQueued(SLICE_BYTES);
    } catch (err) {
      fail(err);
      return;
    }
    if (queued > 0) schedule();
  };
  const schedule = (): void => {
    if (sliceScheduled) return;
    sliceScheduled = true;
    setImmediate(slice);
  };

  for (const state of states) {
    state.pipe.on('data', (chunk: Buffer) => {
      if (stopped) return;
      try {
        let bytes: Uint8Array = chunk;
        const room = options.maxBytes - total;
        const over = bytes.length > room;
        if (over) bytes = bytes.subarray(0, room);
        if (bytes.length > 0) {
          const offset = state.capture.bytes;
          const wait = state.capture.store(bytes);
          total += bytes.length;
          queue.push({ state, bytes, offset, tMs: performance.now() - t0 });
          queued += bytes.length;
          schedule();
          if (wait) {
            state.rawWait = true;
            state.pipe.pause();
            wait.then(() => {
              state.rawWait = false;
              maybeResume(state);
            }, fail);
          }
          if (queued > QUEUE_MAX_BYTES && !queueFull) {
            queueFull = true;
            for (const st of states) st.pipe.pause();
          }
        }
        if (over) {
          // The cap is hard: the bytes past it are neither stored nor sanitized. SIGTERM goes
          // out before the pipes close, so the child sees the signal rather than EPIPE first.
          terminate('max-bytes');
          stopReading();
        }
      } catch (err) {
        fail(err);
      }
    });
  }

  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => terminate('timeout'), options.timeoutMs);
  const onAbort = (): void => terminate('interrupted');
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const exit = await child.exited;
  clearTimeout(timer);
  if (!states.every((s) => s.closed)) {
    // The child is gone but something it started still holds a pipe open.
    const drain = setTimeout(() => terminate('pipes-held-open'), options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS);
    await Promise.all(states.map((s) => s.whenClosed));
    clearTimeout(drain);
  }
  // Processes the command left behind in its group (`sleep 300 &` with its output closed) would
  // run on unsupervised after the capture says it is over: stop them the same way.
  if (!termination && process.platform !== 'win32' && (await groupAlive(child.pid))) terminate('left-running');
  const durationMs = performance.now() - t0;
  // Wait for the kill sequence, so an escalation to SIGKILL is in the record.
  if (killing) await killing;
  await undoLaunch();
  options.signal?.removeEventListener('abort', onAbort);

  // Everything stored is sanitized before the streams end (the queue is empty unless the pipes
  // closed with chunks still waiting for their slice).
  if (failure === null) {
    try {
      sanitizeQueued(Infinity);
    } catch (err) {
      failure = err;
    }
  }
  // The text the streams' ends make (a held line, an open string's end) is logged and followed
  // before anything is committed: from here on the settled text is complete.
  if (failure === null) {
    try {
      for (const s of states) {
        const end = s.capture.endText();
        const row = { stream: s.name, offset: s.capture.bytes, length: 0, textOffset: end.offset, textLength: end.length, tMs: performance.now() - t0 };
        // Text only the end made gets a row of its own (no raw bytes), so the log accounts for
        // every text byte a merged view has to label.
        if (end.length > 0) {
          const seq = log.add(s.name, row.offset, 0, row.textOffset, row.textLength, row.tMs);
          feed?.chunk({ seq, ...row }, EMPTY);
        } else {
          feed?.settle(s.name, row);
        }
        feed?.end(s.name);
      }
    } catch (err) {
      failure = err;
    }
  }
  feed?.close();
  if (failure !== null) {
    await Promise.all(states.map((s) => s.capture.abort().catch(() => undefined)));
    throw failure;
  }
  // From the raw commits until the record is written, a prune must not run: a commit that reuses
  // an existing raw file (dedup) would otherwise lose it to a prune that did not see the record.
  let releaseLock: (() => Promise<void>) | undefined;
  if (options.holdRetentionLock) {
    try {
      releaseLock = await options.holdRetentionLock();
    } catch (err) {
      await Promise.all(states.map((s) => s.capture.abort().catch(() => undefined)));
      throw err;
    }
  }
  // Both commits at once: each ends in fsyncs, which overlap instead of adding up.
  const settled = await Promise.allSettled(states.map((s) => s.capture.finish(s.ended)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    // A writer that did commit cannot be taken back (its file may be shared by dedup); prune
    // removes such unreferenced raw files as orphans.
    await Promise.all(states.map((s) => s.capture.abort().catch(() => undefined)));
    await releaseLock?.().catch(() => undefined);
    throw failed.reason;
  }
  const results = settled.map((r) => (r as PromiseFulfilledResult<StreamResult>).value);
  const [stdout, stderr] = results;
  const reason = (termination as { reason: TerminationReason } | null)?.reason;
  return {
    argv: options.argv,
    cwd: options.cwd,
    pid: child.pid,
    startedAt,
    durationMs,
    exit,
    termination: reason ? { reason, signals: [...child.signalsSent] } : null,
    truncated: results.some((r) => !r.complete),
    totalBytes: total,
    streams: { stdout, stderr },
    chunkLog: log,
    maxBytes: options.maxBytes,
    maxText: options.maxText,
    ...(launch.hint ? { viewHint: launch.hint } : {}),
    ...(releaseLock ? { releaseRetentionLock: releaseLock } : {}),
  };
}

const EMPTY = new Uint8Array(0);

/** Wraps one pipe with the flags the collector needs; 'close' follows 'end' and also a destroy. */
function openStream(name: StreamName, pipe: Readable, capture: StreamCapture): StreamState {
  const state: StreamState = {
    name,
    pipe,
    capture,
    ended: false,
    closed: false,
    rawWait: false,
    whenClosed: new Promise<void>((resolve) => {
      pipe.once('close', () => {
        state.closed = true;
        resolve();
      });
    }),
  };
  pipe.once('end', () => (state.ended = true));
  pipe.on('error', () => undefined); // a read error ends the stream; 'close' follows and `ended` stays false
  return state;
}
