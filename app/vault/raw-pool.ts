import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { unlink, type FileHandle } from 'node:fs/promises';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { VaultLayout } from './layout';
import { openTemp, publishRaw, rawTempName, type RawCommit, type RawWriter } from './raw-writer';
import { formatRef } from './ref';

/**
 * Raw writers whose hashing and file writes run on one worker thread, so the thread that reads
 * the child's pipes and sanitizes does nothing per byte but one copy into shared memory. This is
 * what `airlock capture` uses; `Vault.createRawWriter()` (everything on the calling thread, plus
 * libuv's pool for the writes) stays for small writes where a thread would only cost start-up.
 *
 * Per writer there is one ring of shared memory: the caller copies each chunk in and advances
 * `written`; the worker hashes and writes what lies between `consumed` and `written` (in order,
 * with writeSync on a descriptor the main thread opened and will fsync, close and publish) and
 * advances `consumed`. A full ring is backpressure: write() returns a promise. The worker never
 * touches a descriptor after it has said so ('finished', 'released'), and a descriptor is only
 * closed after that (or after the worker is gone), so a reused descriptor number can never get
 * stray bytes. The temp file, modes, dedup and publication are exactly those of the plain writer.
 */

/** Shared memory per writer; a chunk larger than the free part waits (a copy) until there is room. */
const RING_BYTES = 4 << 20;
/** The worker is woken once this much is waiting (and at commit); a quiet stream costs no wake-ups. */
const WAKE_BYTES = 1 << 20;
/**
 * While writing, every this many bytes the file's data is fdatasync'ed in the background, so the
 * fsync at commit has only the last stretch left to write out instead of the whole file.
 */
const SYNC_BYTES = 32 << 20;
/**
 * A writer with no more than this is hashed and written by the calling thread at commit (it is
 * all still in the ring): a thread costs tens of milliseconds to start, a small output less.
 */
const ATTACH_BYTES = 1 << 20;

// Counters per writer (BigInt64Array over a SharedArrayBuffer), in bytes since the start.
const WRITTEN = 0; // advanced by the main thread after copying into the ring
const CONSUMED = 1; // advanced by the worker after hashing and writing
const WANT_SPACE = 2; // 1: the main thread waits for room; the worker clears it and says 'space'

/** Worker → main messages. */
type FromWorker =
  | { t: 'space'; id: number }
  | { t: 'error'; id: number; error: ErrorInfo }
  | { t: 'finished'; id: number; sha256: string; size: number }
  | { t: 'finished'; id: number; error: ErrorInfo }
  | { t: 'released'; id: number };

interface ErrorInfo {
  readonly message: string;
  readonly code?: string;
  readonly errno?: number;
  readonly syscall?: string;
}

/**
 * The worker, plain CommonJS run with `eval` (no file to locate in a bundle or in tests). It
 * loops without returning to its event loop: commands come in with receiveMessageOnPort and it
 * sleeps in Atomics.wait on a shared sequence number the main thread bumps.
 */
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { writeSync } = require('node:fs');
const MAX_WRITE = 1 << 20;
const ctl = new Int32Array(workerData.control);
const port = workerData.port;
const streams = new Map();
let quit = false;
const info = (e) => ({ message: String((e && e.message) || e), code: e && e.code, errno: e && e.errno, syscall: e && e.syscall });
function drain(s) {
  if (s.fd < 0) return false;
  const written = Number(Atomics.load(s.counters, 0));
  let did = false;
  while (s.consumed < written) {
    const start = s.consumed % s.ring.length;
    const n = Math.min(written - s.consumed, s.ring.length - start, MAX_WRITE);
    if (s.error === null) {
      const view = s.ring.subarray(start, start + n);
      try {
        s.hash.update(view);
        let off = 0;
        while (off < n) off += writeSync(s.fd, view, off, n - off, null);
      } catch (e) {
        s.error = info(e);
        parentPort.postMessage({ t: 'error', id: s.id, error: s.error });
      }
    }
    s.consumed += n;
    Atomics.store(s.counters, 1, BigInt(s.consumed));
    did = true;
  }
  return did;
}
function space(s) {
  if (Atomics.load(s.counters, 2) !== 0n && Number(Atomics.load(s.counters, 0)) - s.consumed < s.ring.length) {
    Atomics.store(s.counters, 2, 0n);
    parentPort.postMessage({ t: 'space', id: s.id });
  }
}
function command(m) {
  if (m.t === 'attach') {
    streams.set(m.id, { id: m.id, fd: -1, ring: new Uint8Array(m.ring), counters: new BigInt64Array(m.counters), consumed: 0, hash: createHash('sha256'), error: null });
  } else if (m.t === 'open') {
    const s = streams.get(m.id);
    if (s) s.fd = m.fd;
  } else if (m.t === 'finish') {
    const s = streams.get(m.id);
    if (!s) return;
    if (s.fd < 0 && s.error === null) s.error = { message: 'raw writer finished before its file was open' };
    drain(s);
    streams.delete(m.id);
    if (s.error !== null) parentPort.postMessage({ t: 'finished', id: m.id, error: s.error });
    else parentPort.postMessage({ t: 'finished', id: m.id, sha256: s.hash.digest('hex'), size: s.consumed });
  } else if (m.t === 'release') {
    streams.delete(m.id);
    parentPort.postMessage({ t: 'released', id: m.id });
  } else if (m.t === 'quit') {
    quit = true;
  }
}
while (!quit) {
  const seq = Atomics.load(ctl, 0);
  let m;
  while (!quit && (m = receiveMessageOnPort(port)) !== undefined) command(m.message);
  if (quit) break;
  let did = false;
  for (const s of streams.values()) {
    if (drain(s)) did = true;
    space(s);
  }
  if (!did) Atomics.wait(ctl, 0, seq);
}
port.close();
`;

const noop = (): void => undefined;

function toError(e: ErrorInfo): Error {
  const err = new Error(e.message) as NodeJS.ErrnoException;
  if (e.code !== undefined) err.code = e.code;
  if (e.errno !== undefined) err.errno = e.errno;
  if (e.syscall !== undefined) err.syscall = e.syscall;
  return err;
}

/** A promise with its settle functions, for answers that arrive as worker messages. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(noop); // a caller that stopped waiting must not turn this into an unhandled rejection
  return { promise, resolve, reject };
}

/** One running worker and the writers attached to it. */
class WorkerLink {
  readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
  readonly writers = new Map<number, PooledRawWriter>();
  /** Set once the worker has exited: why. Nothing of it can touch a descriptor any more. */
  gone: Error | null = null;
  private crash: Error | null = null;

  constructor(private readonly onIdle: (link: WorkerLink) => void) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control: this.control.buffer, port: port2 },
      transferList: [port2],
      // Not the parent's flags: a preload (--import, --require) or --cpu-prof has no business here.
      execArgv: [],
    });
    this.worker.on('message', (m: FromWorker) => this.writers.get(m.id)?.onMessage(m));
    this.worker.on('error', (err) => (this.crash ??= err));
    this.worker.on('exit', (code) => {
      const why = this.crash ? `: ${String(this.crash.message).split('\n')[0]}` : ` (exit code ${code})`;
      this.gone = new Error(`the raw writer thread stopped before the raw bytes were written${why}`);
      this.port.close();
      for (const w of [...this.writers.values()]) w.onWorkerGone(this.gone);
      this.writers.clear();
    });
  }

  post(message: unknown): void {
    if (this.gone) return;
    this.port.postMessage(message);
    this.wake();
  }

  wake(): void {
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
  }

  detach(id: number): void {
    this.writers.delete(id);
    if (this.writers.size === 0) this.onIdle(this);
  }

  /** Asks the worker to end; it is unref'ed so a process that is done does not wait for it. */
  quit(): void {
    this.post({ t: 'quit' });
    this.worker.unref();
  }
}

type State = 'open' | 'committing' | 'done';

class PooledRawWriter implements RawWriter {
  private readonly tempPath: string;
  private readonly handle: Promise<FileHandle>;
  /** The handle once open (and, when attached, announced to the worker); commit waits for this. */
  private readonly opened: Promise<FileHandle>;
  private fh: FileHandle | null = null;
  private readonly ringBuf = new SharedArrayBuffer(RING_BYTES);
  private readonly ring = new Uint8Array(this.ringBuf);
  private readonly counters = new BigInt64Array(new SharedArrayBuffer(8 * 3));
  /** The worker, from the moment this writer has more than ATTACH_BYTES (null: all still in the ring). */
  private link: WorkerLink | null = null;
  private written = 0;
  private wokenAt = 0;
  private bytes = 0;
  private state: State = 'open';
  /** Bytes that did not fit in the ring, copied, oldest first; write() waits for them. */
  private readonly overflow: Uint8Array[] = [];
  private room: ReturnType<typeof deferred<void>> | null = null;
  /** The first failure (a write, the open, a background sync, the worker): every later call reports it. */
  private error: unknown = null;
  /** Whether the worker may still use the descriptor (attached and not yet finished or released). */
  private attached = false;
  private readonly released = deferred<void>();
  private finished: ReturnType<typeof deferred<{ sha256: string; size: number }>> | null = null;
  private syncing: Promise<void> | null = null;
  private syncedAt = 0;

  constructor(
    private readonly layout: VaultLayout,
    private readonly pool: RawWriterPool,
    private readonly id: number,
  ) {
    this.tempPath = join(layout.tmpDir, rawTempName());
    this.handle = openTemp(this.tempPath);
    this.opened = this.handle.then((fh) => {
      this.fh = fh;
      this.link?.post({ t: 'open', id: this.id, fd: fh.fd });
      return fh;
    });
    this.opened.catch((err: unknown) => this.fail(err));
  }

  get size(): number {
    return this.bytes;
  }

  write(chunk: Uint8Array): void | Promise<void> {
    if (this.state !== 'open') throw new Error('raw writer is closed');
    if (this.error !== null) return this.rejected();
    this.bytes += chunk.byteLength;
    if (this.overflow.length > 0) {
      this.overflow.push(new Uint8Array(chunk));
      return this.room!.promise;
    }
    const n = this.copyIn(chunk);
    this.maybeSync();
    if (n === chunk.byteLength) return undefined;
    this.overflow.push(new Uint8Array(chunk.subarray(n)));
    this.room = deferred<void>();
    this.askForSpace();
    return this.room.promise;
  }

  async commit(): Promise<RawCommit> {
    if (this.state !== 'open') throw new Error('raw writer is closed');
    this.state = 'committing';
    let moved = false;
    try {
      if (this.room) await this.room.promise;
      const fh = await this.opened;
      this.throwIfFailed();
      let sha256: string;
      if (this.link === null) {
        // Small output: it is all still in the ring, and starting a thread would cost more than this.
        const bytes = this.ring.subarray(0, this.written);
        sha256 = createHash('sha256').update(bytes).digest('hex');
        await writeAll(fh, bytes);
      } else {
        this.finished = deferred();
        this.link.post({ t: 'finish', id: this.id });
        const done = await this.finished.promise;
        if (done.size !== this.bytes) throw new Error(`raw writer lost bytes: ${done.size} written of ${this.bytes}`);
        sha256 = done.sha256;
      }
      await this.syncing;
      this.throwIfFailed();
      await fh.sync();
      await fh.close();
      moved = await publishRaw(this.layout, this.tempPath, sha256);
      return { sha256, size: this.bytes, ref: formatRef(sha256) };
    } finally {
      this.state = 'done';
      if (!moved) await this.discard();
      else this.link?.detach(this.id);
    }
  }

  async abort(): Promise<void> {
    if (this.state === 'done') return;
    this.state = 'done';
    await this.discard();
  }

  onMessage(m: FromWorker): void {
    if (m.t === 'space') {
      this.moveOverflow();
    } else if (m.t === 'error') {
      this.fail(toError(m.error));
    } else if (m.t === 'finished') {
      this.attached = false;
      this.released.resolve();
      if ('error' in m) this.finished?.reject(toError(m.error));
      else this.finished?.resolve({ sha256: m.sha256, size: m.size });
    } else if (m.t === 'released') {
      this.attached = false;
      this.released.resolve();
    }
  }

  /** The worker exited: it holds nothing any more, and nothing more will be written. */
  onWorkerGone(err: Error): void {
    this.attached = false;
    this.released.resolve();
    this.fail(err);
    this.finished?.reject(err);
  }

  /** Hands the ring to the worker (started now if none runs): from here on it hashes and writes. */
  private attach(): WorkerLink {
    const link = this.pool.attach(this.id, this);
    this.link = link;
    this.attached = true;
    link.post({ t: 'attach', id: this.id, ring: this.ringBuf, counters: this.counters.buffer });
    if (this.fh !== null) link.post({ t: 'open', id: this.id, fd: this.fh.fd });
    if (link.gone) this.onWorkerGone(link.gone);
    return link;
  }

  /** Copies what fits into the ring and publishes it; returns the bytes taken. */
  private copyIn(chunk: Uint8Array): number {
    const consumed = Number(Atomics.load(this.counters, CONSUMED));
    const n = Math.min(chunk.byteLength, RING_BYTES - (this.written - consumed));
    if (n <= 0) return 0;
    const start = this.written % RING_BYTES;
    const first = Math.min(n, RING_BYTES - start);
    this.ring.set(first === chunk.byteLength ? chunk : chunk.subarray(0, first), start);
    if (first < n) this.ring.set(chunk.subarray(first, n), 0);
    this.written += n;
    Atomics.store(this.counters, WRITTEN, BigInt(this.written));
    if (this.written - this.wokenAt >= WAKE_BYTES && this.written > ATTACH_BYTES) {
      this.wokenAt = this.written;
      (this.link ?? this.attach()).wake();
    }
    return n;
  }

  private askForSpace(): void {
    Atomics.store(this.counters, WANT_SPACE, 1n);
    this.wokenAt = this.written;
    (this.link ?? this.attach()).wake();
  }

  /** The worker made room: move waiting bytes in; the write() promise settles once all are in. */
  private moveOverflow(): void {
    if (this.error !== null || this.state === 'done') return;
    while (this.overflow.length > 0) {
      const head = this.overflow[0];
      const n = this.copyIn(head);
      if (n < head.byteLength) {
        this.overflow[0] = head.subarray(n);
        this.askForSpace();
        return;
      }
      this.overflow.shift();
    }
    this.maybeSync();
    const room = this.room;
    this.room = null;
    room?.resolve();
  }

  /** Starts a background fdatasync once another SYNC_BYTES are on their way to disk. */
  private maybeSync(): void {
    if (this.syncing || this.fh === null || this.link === null || this.state === 'done') return;
    const consumed = Number(Atomics.load(this.counters, CONSUMED));
    if (consumed - this.syncedAt < SYNC_BYTES) return;
    this.syncedAt = consumed;
    this.syncing = this.fh.datasync().then(
      () => {
        this.syncing = null;
      },
      (err: unknown) => {
        this.syncing = null;
        this.fail(err);
      },
    );
  }

  private fail(err: unknown): void {
    if (this.error !== null) return;
    this.error = err;
    this.overflow.length = 0;
    const room = this.room;
    this.room = null;
    room?.reject(err);
  }

  private throwIfFailed(): void {
    if (this.error !== null) throw this.error;
  }

  private rejected(): Promise<void> {
    const p = Promise.reject(this.error);
    p.catch(noop);
    return p;
  }

  /**
   * Takes the descriptor back from the worker (waits until it says it is done with it, or is
   * gone), then closes and removes the temp file. Best effort; used on every non-publish path.
   */
  private async discard(): Promise<void> {
    if (this.attached && this.link !== null) {
      this.link.post({ t: 'release', id: this.id });
      if (this.link.gone) this.onWorkerGone(this.link.gone);
      await this.released.promise;
    }
    this.link?.detach(this.id);
    await this.syncing?.catch(noop);
    const fh = await this.handle.catch(() => null);
    await fh?.close().catch(noop);
    await unlink(this.tempPath).catch(noop);
  }
}

async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off, null);
    off += bytesWritten;
  }
}

/**
 * Creates raw writers that share one worker thread. A writer keeps its first ATTACH_BYTES to
 * itself (a small output is hashed and written at commit, no thread needed); past that it is
 * attached to the worker, which starts with the first such writer and is told to end when the
 * last attached one has committed or aborted. A later writer starts a new one.
 */
export class RawWriterPool {
  private link: WorkerLink | null = null;
  private nextId = 1;

  constructor(private readonly layout: VaultLayout) {}

  createRawWriter(): RawWriter {
    return new PooledRawWriter(this.layout, this, this.nextId++);
  }

  /** @internal The running worker (started if needed), with `writer` registered on it. */
  attach(id: number, writer: PooledRawWriter): WorkerLink {
    if (this.link === null || this.link.gone) {
      this.link = new WorkerLink((idle) => {
        if (this.link === idle) this.link = null;
        idle.quit();
      });
    }
    this.link.writers.set(id, writer);
    return this.link;
  }

  /**
   * Stops the worker now, as if it had crashed: for tests of that failure path only. Writers
   * attached to it report the error from write() and commit().
   * @internal
   */
  async killWorkerForTest(): Promise<void> {
    await this.link?.worker.terminate();
  }
}
