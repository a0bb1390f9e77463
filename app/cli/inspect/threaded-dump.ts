import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CliError } from '../command';
import type { DumpThreadData } from './dump-thread';
import type { DumpLayout, SpanMeanings } from './dump-layout';
import { RingFailure, RingStopped, RingWriter, SlotRing } from './slot-ring';

/**
 * Inputs from this size on are dumped on a second thread: a thread costs ~40 ms to start, which a
 * large dump repays (its parse, here, and its formatting, there, run at once), a small one does not.
 */
export const THREAD_MIN_BYTES = 8 << 20;

/**
 * The dump thread's script, dist/inspect-worker.cjs, beside this bundle (or above it, from the
 * split build's chunks); null when there is none (tests run the sources).
 */
function workerScript(): URL | null {
  for (const name of ['./inspect-worker.cjs', '../inspect-worker.cjs']) {
    const url = new URL(name, import.meta.url);
    if (url.protocol === 'file:' && existsSync(fileURLToPath(url))) return url;
  }
  return null;
}

/** The global a dump thread started early (by dist/airlock.mjs, before this bundle loaded) is left in. */
const PRESTARTED = Symbol.for('airlock.inspect.dumpThread');

/** The dump thread started early, taken (once), or null. */
function prestarted(): Worker | null {
  const g = globalThis as Record<symbol, unknown>;
  const worker = g[PRESTARTED];
  delete g[PRESTARTED];
  return worker instanceof Worker ? worker : null;
}

/**
 * A dump formatted on a second thread (inspect-worker.ts) while this one parses: the sanitizer's
 * span log and each chunk's bytes go to it through a ring of shared slots ({@link spans},
 * {@link push}); it writes the dump to the descriptor itself. {@link finish} waits until all is
 * written, so what this thread prints after (the summary) follows the dump.
 */
export class ThreadedDump {
  /** The sanitizer's span log (SanitizerOptions.spanLog); set its `meanings` to the sanitizer. */
  readonly spans: RingWriter;
  private readonly done: Promise<void>;

  private constructor(ring: SlotRing, private readonly worker: Worker) {
    this.spans = new RingWriter(ring);
    this.done = new Promise((resolve, reject) => {
      worker.once('message', (m: { done?: true; error?: string }) => {
        if (m.done) resolve();
        else reject(m.error === 'EPIPE' ? new RingStopped(RingFailure.OutputClosed) : new Error(`dump thread: ${m.error}`));
      });
      worker.once('error', reject);
    });
    // Settled by finish(); a rejection before is seen there.
    this.done.catch(() => undefined);
  }

  /**
   * Starts the dump thread writing to descriptor `fd` (or tells the one started early, see
   * {@link prestarted}), or returns null when it cannot be started here.
   */
  static start(layout: DumpLayout, fd: number): ThreadedDump | null {
    const ring = new SlotRing();
    const data: DumpThreadData = { buffer: ring.buffer, layout, fd };
    const early = prestarted();
    if (early !== null) {
      early.ref();
      early.postMessage(data);
      return new ThreadedDump(ring, early);
    }
    const script = workerScript();
    return script === null ? null : new ThreadedDump(ring, new Worker(script, { workerData: data, execArgv: [] }));
  }

  /** Ends a thread started early that the command did not want (a summary, a small file). */
  static discard(): void {
    void prestarted()?.terminate();
  }

  /** Sets where the span log's meanings come from (the sanitizer writing into it). */
  set meanings(meanings: SpanMeanings) {
    this.spans.meanings = meanings;
  }

  /** Sends a chunk the sanitizer has just written (at most FEED bytes: the rows it settles are shown after it). */
  push(chunk: Uint8Array): void {
    this.spans.push(chunk);
  }

  /** Ends the input and waits until the dump is written; throws what stopped the thread. */
  async finish(): Promise<void> {
    this.spans.end();
    await this.done;
  }

  /**
   * After a RingStopped from the span log or {@link push}: waits for the thread's word. Resolves
   * true when the output was closed (a reader that went away: not an error); else throws the error.
   */
  async stopped(err: unknown): Promise<boolean> {
    if (!(err instanceof RingStopped)) {
      await this.worker.terminate();
      throw err;
    }
    try {
      await this.done;
    } catch (why) {
      if (why instanceof RingStopped && why.why === RingFailure.OutputClosed) return true;
      throw why instanceof Error ? why : new CliError(String(why));
    }
    return err.why === RingFailure.OutputClosed;
  }
}
