// Main's side of the artifact queries: nothing a caller asks runs on main's event loop. The viewer's
// bounded queries (spans, text lines, positions, minimap, next span, span values) go to one
// long-lived query worker; each search (sanitized text or granted raw bytes) runs alone on a search
// thread (kept for the next search, up to IDLE_SEARCH_THREADS), which main ends to cancel it. Every
// query has a time budget: the worker stops itself at the deadline (budget.ts), and main's watchdog
// ends a thread that has not answered WATCHDOG_GRACE_MS after it (the query fails with 'timeout';
// other queries that were waiting on the same query worker fail with 'unavailable' and a fresh
// worker answers the next ask). In `inline` mode (tests) a host in this thread runs them, bounded
// by the same budget checks.
import { Worker } from 'node:worker_threads';
import { BridgeError } from '../bridge/errors';
import { QueryHost, type QueryReply, type QueryRequest } from './query-host';
import { IndexCorrupt } from './reader';

/** Time budgets (ms). */
export interface QueryBudgets {
  /** A viewer query (default 10 s: they read at most a few MiB of index). */
  readonly viewMs: number;
  /** A search (default 5 minutes: a text search of a multi-GiB lazy index re-sanitizes it). */
  readonly searchMs: number;
}

export const DEFAULT_QUERY_BUDGETS: QueryBudgets = { viewMs: 10_000, searchMs: 300_000 };
/** How long past its deadline main waits for a worker before it ends the thread. */
export const WATCHDOG_GRACE_MS = 2_000;
/** Search threads kept waiting for the next search (starting one costs ~50 ms). */
const IDLE_SEARCH_THREADS = 2;

type Ask = Omit<QueryRequest, 'id' | 'deadline' | 'cancel' | 'script'>;

interface Waiting {
  readonly worker: Worker;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

export class QueryClient {
  private next = 1;
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private readonly inlineHost: QueryHost | null;
  private readonly searches = new Set<Worker>();
  private readonly idle: Worker[] = [];
  /** Search threads that may hold an index main has since dropped: not kept after their search. */
  private readonly retired = new WeakSet<Worker>();

  constructor(private readonly o: { readonly script: () => Promise<string>; readonly inline: boolean; readonly budgets: QueryBudgets }) {
    this.inlineHost = o.inline ? new QueryHost() : null;
  }

  /** A viewer query on the query worker. */
  async view(ask: Ask): Promise<unknown> {
    const deadline = Date.now() + this.o.budgets.viewMs;
    const request: QueryRequest = { ...ask, id: this.next++, deadline };
    if (this.inlineHost) return settle(await this.inlineHost.run(request));
    const worker = await this.queryWorker();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // The worker neither answered nor stopped itself: end it (a fresh one takes the next ask).
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        this.failAll(worker, new BridgeError('unavailable', 'the query worker was restarted; ask again'), request.id, stopped('timeout', `${ask.method} ran past its time budget and was stopped`));
      }, this.o.budgets.viewMs + WATCHDOG_GRACE_MS);
      timer.unref();
      this.waiting.set(request.id, { worker, resolve, reject, timer });
      worker.postMessage({ type: 'query', request });
    });
  }

  /** A search in a thread of its own; `signal` ends it ('cancelled'). */
  async search(ask: Ask, signal: AbortSignal | null): Promise<unknown> {
    if (signal?.aborted) throw stopped('cancelled', `${ask.method} was cancelled`);
    const deadline = Date.now() + this.o.budgets.searchMs;
    // Inline (tests), a lazy index's search runs its ranges here too.
    const script = this.inlineHost ? null : await this.o.script().catch(() => null);
    const request: QueryRequest = { ...ask, id: this.next++, deadline, script };
    if (this.inlineHost || !script) return settle(await (this.inlineHost ?? new QueryHost()).run(request, signal));
    const worker = this.idle.pop() ?? this.searchThread(script);
    this.searches.add(worker);
    return new Promise((resolve, reject) => {
      let done = false;
      const end = (f: () => void, keep: boolean): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        this.searches.delete(worker);
        if (keep && !this.retired.has(worker) && this.idle.length < IDLE_SEARCH_THREADS) this.idle.push(worker);
        else void worker.terminate();
        f();
      };
      const onAbort = (): void => end(() => reject(stopped('cancelled', `${ask.method} was cancelled`)), false);
      const timer = setTimeout(() => end(() => reject(stopped('timeout', `${ask.method} ran past its time budget (${Math.round(this.o.budgets.searchMs / 1000)} s) and was stopped`)), false),
        this.o.budgets.searchMs + WATCHDOG_GRACE_MS);
      const onMessage = (reply: QueryReply): void => end(() => {
        try {
          resolve(settle(reply));
        } catch (err) {
          reject(err);
        }
      }, true);
      const onError = (err: Error): void => end(() => reject(err), false);
      const onExit = (code: number): void => end(() => reject(new Error(`search worker exited with code ${code}`)), false);
      signal?.addEventListener('abort', onAbort);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ type: 'query', request });
    });
  }

  /** A thread for searches: a query host without the replay warm-up, ended to cancel what it runs. */
  private searchThread(script: string): Worker {
    const w = new Worker(script, { workerData: { airlockQueryHost: true, airlockSearchThread: true }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    w.unref();
    // An idle thread that dies is simply dropped.
    w.on('exit', () => {
      const k = this.idle.indexOf(w);
      if (k >= 0) this.idle.splice(k, 1);
    });
    return w;
  }

  /** Tells the query worker to forget the open index of `sha` (rebuilt or removed). */
  drop(sha: string): void {
    this.worker?.postMessage({ type: 'drop', sha });
    for (const w of this.idle.splice(0)) void w.terminate();
    for (const w of this.searches) this.retired.add(w);
    void this.inlineHost?.drop(sha);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) {
      this.failAll(w, new BridgeError('unavailable', 'the artifact service is closing'));
      await w.terminate();
    }
    await Promise.all([...this.searches, ...this.idle].map((s) => s.terminate()));
    this.searches.clear();
    this.idle.length = 0;
    await this.inlineHost?.close();
  }

  private async queryWorker(): Promise<Worker> {
    if (this.worker) return this.worker;
    const script = await this.o.script();
    if (this.worker) return this.worker;
    const w = new Worker(script, { workerData: { airlockQueryHost: true }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    w.unref();
    w.on('message', (reply: QueryReply) => {
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      clearTimeout(waiting.timer);
      try {
        waiting.resolve(settle(reply));
      } catch (err) {
        waiting.reject(err);
      }
    });
    const gone = (why: string): void => {
      if (this.worker === w) this.worker = null;
      this.failAll(w, new BridgeError('unavailable', `the query worker stopped (${why}); ask again`));
    };
    w.on('error', (err) => gone(err.message));
    w.on('exit', (code) => gone(`exit code ${code}`));
    this.worker = w;
    return w;
  }

  /** Fails every query waiting on `w` with `err` (query `id` with `own`). */
  private failAll(w: Worker, err: Error, id?: number, own?: Error): void {
    for (const [k, waiting] of this.waiting) {
      if (waiting.worker !== w) continue;
      this.waiting.delete(k);
      clearTimeout(waiting.timer);
      waiting.reject(k === id && own ? own : err);
    }
  }
}

function stopped(why: 'cancelled' | 'timeout', message: string): BridgeError {
  return new BridgeError(why, message);
}

/** A reply as a value or the error it stands for. */
function settle(reply: QueryReply): unknown {
  if (reply.ok) return reply.value;
  if (reply.kind === 'bridge') throw new BridgeError(reply.code, reply.message);
  if (reply.kind === 'stopped') throw stopped(reply.why, reply.message);
  if (reply.kind === 'corrupt') throw new IndexCorrupt(reply.message);
  throw new Error(reply.message);
}
