// Main's side of the running scans: requests to one worker thread (the artifact worker's bundle in
// its `airlockFollowScan` role), answered in order; inline (same thread) for tests that pass
// `inline`. A worker that dies fails its pending requests and is started again by the next one.
import { Worker } from 'node:worker_threads';
import type { IndexSanitizerOptions } from '../artifact/format';
import { ScanHost, type ScanReply, type ScanRequest } from './scan-host';
import type { ScanSnapshot } from './scan';

type Pending = { resolve: (s: ScanSnapshot | null) => void; reject: (e: Error) => void };
type Ask = { type: 'advance'; key: string; path: string; upTo: number; options: IndexSanitizerOptions; buckets: number } | { type: 'drop'; key: string };

export class ScanClient {
  private worker: Worker | null = null;
  private host: ScanHost | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 1;

  constructor(private readonly o: { script: () => Promise<string>; inline: boolean }) {}

  /** Feeds `key`'s scan from `path` up to raw byte `upTo` (a bounded step) and answers its counts. */
  async advance(key: string, path: string, upTo: number, options: IndexSanitizerOptions, buckets: number): Promise<ScanSnapshot> {
    return (await this.ask({ type: 'advance', key, path, upTo, options, buckets }))!;
  }

  /** Ends `key`'s scan (its file is closed). */
  async drop(key: string): Promise<void> {
    if (this.worker || this.host) await this.ask({ type: 'drop', key }).catch(() => undefined);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
    await this.host?.close();
    this.host = null;
    this.fail(new Error('the follow scans were closed'));
  }

  private async ask(a: Ask): Promise<ScanSnapshot | null> {
    const id = this.next++;
    const request = { ...a, id } as ScanRequest;
    if (this.o.inline) {
      this.host ??= new ScanHost();
      return unwrap(await this.host.handle(request));
    }
    const worker = await this.ensureWorker();
    return new Promise<ScanSnapshot | null>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(request);
    });
  }

  private async ensureWorker(): Promise<Worker> {
    if (this.worker) return this.worker;
    const script = await this.o.script();
    if (this.worker) return this.worker;
    const w = new Worker(script, { workerData: { airlockFollowScan: true }, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    w.unref();
    w.on('message', (m: ScanReply) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (!p) return;
      if (m.ok) p.resolve(m.snapshot);
      else p.reject(new Error(m.message));
    });
    const gone = (err: Error): void => {
      if (this.worker === w) this.worker = null;
      this.fail(err);
    };
    w.on('error', gone);
    w.on('exit', () => gone(new Error('the follow scan worker ended')));
    this.worker = w;
    return w;
  }

  private fail(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

function unwrap(r: ScanReply): ScanSnapshot | null {
  if (!r.ok) throw new Error(r.message);
  return r.snapshot;
}
