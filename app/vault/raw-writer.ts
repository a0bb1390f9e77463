import { createHash, randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { hostname } from 'node:os';
import { open, rename, unlink, utimes, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pidAlive } from '../audit/lock';
import { ensurePrivateDir, fsyncDir, pathExists, PRIVATE_FILE_MODE } from '../files/fs-atomic';
import type { VaultLayout } from './layout';
import { formatRef } from './ref';

/** What a committed raw artifact is: its digest, its length and the agent-facing reference. */
export interface RawCommit {
  readonly sha256: string;
  readonly size: number;
  /** `restricted:sha256:<hex>` */
  readonly ref: string;
}

/**
 * Streams raw bytes into the vault. `write` copies the chunk (the caller may reuse its buffer at
 * once); when it returns a promise, await it for backpressure, otherwise pending data grows in
 * memory. After `commit` or `abort` the writer is closed and further calls throw.
 */
export interface RawWriter {
  write(chunk: Uint8Array): void | Promise<void>;
  commit(): Promise<RawCommit>;
  abort(): Promise<void>;
  /** Bytes accepted so far. */
  readonly size: number;
  /**
   * Name of the temp file in `tmp/` the bytes go to until commit (a running capture names it, so
   * what reached the disk can still be stored when Airlock is killed before the commit); absent
   * for writers that keep bytes elsewhere (tests).
   */
  readonly tempFile?: string;
}

/** Prefix and suffix of in-progress raw files in `tmp/`; prune removes stale ones. */
export const RAW_TEMP_PREFIX = 'raw-';
export const RAW_TEMP_SUFFIX = '.part';

/** A short, filename-safe tag for this host (the hostname itself may hold any character). */
export function hostTag(): string {
  return createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
}

/**
 * Name of a new temp file: `raw-<pid>-<host tag>-<random>.part`. The owner's pid and host are in
 * the name so prune can tell a live capture's temp file (however old its mtime: the writer buffers,
 * so a quiet stream does not touch it) from a crash leftover.
 */
export function rawTempName(): string {
  return `${RAW_TEMP_PREFIX}${process.pid}-${hostTag()}-${randomBytes(8).toString('hex')}${RAW_TEMP_SUFFIX}`;
}

/** Whether `name` is a raw temp file's name as rawTempName makes them, and nothing that could leave tmp/. */
export function isRawTempName(name: string): boolean {
  return RAW_TEMP_NAME.test(name);
}
const RAW_TEMP_NAME = new RegExp(`^${RAW_TEMP_PREFIX}[0-9a-f-]{1,80}${RAW_TEMP_SUFFIX.replace('.', '\\.')}$`);

/**
 * Whether the temp file `name` belongs to a process that is still running on this host. Names
 * without an owner (older format) and owners on other hosts are 'unknown' (false): prune falls
 * back to their age.
 */
export function rawTempOwnerAlive(name: string): boolean {
  const owner = rawTempOwner(name);
  return owner !== null && owner.host === hostTag() && pidAlive(owner.pid);
}

/** The process (pid and host tag) a temp file's name says wrote it, or null for a name without one. */
export function rawTempOwner(name: string): { pid: number; host: string } | null {
  const m = /^raw-([1-9][0-9]{0,9})-([0-9a-f]{8})-[0-9a-f]{16}\.part$/.exec(name);
  return m ? { pid: Number(m[1]), host: m[2] } : null;
}

/**
 * Large writes keep syscalls few; hashing of the next chunk overlaps the previous write, which
 * runs on libuv's thread pool.
 */
const STAGE_BYTES = 1 << 20;
/** Writes allowed in the queue before write() asks the caller to wait. */
const MAX_PENDING = 2;

const noop = (): void => undefined;

type State = 'open' | 'committing' | 'done';

/** Creates a RawWriter writing into `layout.tmpDir`; the temp file is opened immediately. */
export function createRawWriter(layout: VaultLayout): RawWriter {
  return new FileRawWriter(layout);
}

class FileRawWriter implements RawWriter {
  private readonly hash = createHash('sha256');
  private readonly tempPath: string;
  private readonly handle: Promise<FileHandle>;
  /** Every flush is chained here so writes land in order; a failure poisons the chain. */
  private chain: Promise<void> = Promise.resolve();
  /** Flushes not yet on disk, oldest first; write() applies backpressure on the oldest. */
  private readonly pending: Promise<void>[] = [];
  /** Stage buffers whose write finished, reused so 500 MiB do not mean 500 fresh page-faulting allocations. */
  private readonly spare: Buffer[] = [];
  private stage: Buffer | null = null;
  private staged = 0;
  private state: State = 'open';
  private bytes = 0;

  constructor(private readonly layout: VaultLayout) {
    this.tempPath = join(layout.tmpDir, rawTempName());
    this.handle = openTemp(this.tempPath);
    // Errors surface from write()/commit(); this only stops an unhandled-rejection crash.
    this.handle.catch(noop);
  }

  get size(): number {
    return this.bytes;
  }

  get tempFile(): string {
    return basename(this.tempPath);
  }

  write(chunk: Uint8Array): void | Promise<void> {
    if (this.state !== 'open') throw new Error('raw writer is closed');
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
    let offset = 0;
    while (offset < chunk.byteLength) {
      this.stage ??= this.spare.pop() ?? Buffer.allocUnsafe(STAGE_BYTES);
      const n = Math.min(chunk.byteLength - offset, STAGE_BYTES - this.staged);
      this.stage.set(chunk.subarray(offset, offset + n), this.staged);
      this.staged += n;
      offset += n;
      if (this.staged === STAGE_BYTES) this.flush();
    }
    // One write may run while the caller reads and we hash the next stage; with more queued,
    // the caller waits for the oldest. This overlaps hashing with I/O and bounds memory.
    return this.pending.length >= MAX_PENDING ? this.pending[0] : undefined;
  }

  async commit(): Promise<RawCommit> {
    if (this.state !== 'open') throw new Error('raw writer is closed');
    this.state = 'committing';
    let moved = false;
    try {
      if (this.staged > 0) this.flush();
      await this.chain;
      const fh = await this.handle;
      await fh.sync();
      await fh.close();
      const sha256 = this.hash.digest('hex');
      moved = await publishRaw(this.layout, this.tempPath, sha256);
      return { sha256, size: this.bytes, ref: formatRef(sha256) };
    } finally {
      this.state = 'done';
      if (!moved) await this.discard();
    }
  }

  async abort(): Promise<void> {
    if (this.state === 'done') return;
    this.state = 'done';
    await this.chain.catch(noop);
    await this.discard();
  }

  /** Hands the current stage to the write chain; its buffer is reused once written. */
  private flush(): void {
    const buf = this.stage!;
    const data = buf.subarray(0, this.staged);
    this.stage = null;
    this.staged = 0;
    const p = this.chain.then(async () => {
      await writeAll(await this.handle, data);
      this.pending.shift();
      if (this.spare.length < MAX_PENDING + 1) this.spare.push(buf);
    });
    this.chain = p;
    this.pending.push(p);
    p.catch(noop); // the caller may ignore the promise; commit() still reports the error
  }

  /** Closes (if still open) and removes the temp file; best effort, used on every non-publish path. */
  private async discard(): Promise<void> {
    const fh = await this.handle.catch(() => null);
    await fh?.close().catch(noop);
    await unlink(this.tempPath).catch(noop);
  }
}

/**
 * Publishes a complete, fsynced and closed temp file as the raw artifact `sha256`: renamed into
 * `raw/sha256/..` (then the directory is fsynced), or, when identical bytes are already stored,
 * left for the caller to remove (returns false) after touching the stored file.
 */
export async function publishRaw(layout: VaultLayout, tempPath: string, sha256: string): Promise<boolean> {
  const dest = layout.rawPath(sha256);
  await ensurePrivateDir(dirname(dest));
  if (await pathExists(dest)) {
    // Dedup: identical bytes are already stored. Touch the file so mtime-based orphan pruning
    // sees that it is in use again.
    const now = new Date();
    await utimes(dest, now, now);
    return false;
  }
  await rename(tempPath, dest);
  await fsyncDir(dirname(dest));
  return true;
}

/** Creates a raw temp file exclusively, 0600, refusing a planted symlink. */
export async function openTemp(path: string): Promise<FileHandle> {
  const fh = await open(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    await fh.chmod(PRIVATE_FILE_MODE); // the umask may have stripped bits; make 0600 explicit
  } catch (err) {
    await fh.close().catch(noop);
    throw err;
  }
  return fh;
}

async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off, null);
    off += bytesWritten;
  }
}

