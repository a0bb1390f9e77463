import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, fsyncDir, isErrno, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/fs-atomic';
import { VaultError } from './errors';
import type { VaultLayout } from './layout';
import { asOwner, currentOwner, ownerState, type OwnerState, type RunningOwner } from './owner';
import { isRecordId } from './record-id';

/**
 * A capture's record while it runs: `running/<id>/` in the vault, beside (never inside) the
 * write-once records. It holds
 *  - `meta.json`: what is known at the start (the capture's own fields, written once) and its
 *    owner (the process writing the rest);
 *  - `log.jsonl`: one JSON array per line, appended: the capture's chunk log as it grows, early
 *    text of unfinished lines, the raw temp files, and a last line when the record is sealed;
 *  - `stdout.txt`, `stderr.txt` (the streams the capture names): the settled sanitized text,
 *    appended.
 * The sealed record replaces it (the directory is removed once the record and its audit entry are
 * stored), or, when its owner is gone, a record marked interrupted made from it. These files are
 * not bound to the audit log: they are work in progress, and what is sealed from them is.
 */
export const RUNNING_DIR = 'running';
export const RUNNING_META = 'meta.json';
export const RUNNING_LOG = 'log.jsonl';
/** Version of this layout (meta.json's `format`). */
export const RUNNING_FORMAT = 1;

/** Names of the text files: a stream name (as records validate them) and `.txt`. */
const TEXT_FILE = /^[a-z][a-z0-9_-]{0,31}\.txt$/;
/** A start in progress: the directory is made under this name and renamed to the id when complete. */
const STARTING = /^\.(\d{8}T\d{6}Z-[0-9a-f]{8})\.[0-9a-f]{12}\.tmp$/;

/** What meta.json holds besides the capture's own fields. */
export interface RunningMeta {
  readonly format: typeof RUNNING_FORMAT;
  readonly id: string;
  readonly started_at: string;
  readonly owner: RunningOwner;
  readonly streams: readonly string[];
  readonly [key: string]: unknown;
}

/** Bytes buffered before a write is started at once (else within FLUSH_MS). */
const FLUSH_BYTES = 1 << 20;
/** Longest time settled text waits before it is written (what `vault follow` and read_text lag by). */
const FLUSH_MS = 100;
/** Buffered bytes at which the writer asks the capture to wait (the disk is slower than the command). */
const BACKLOG_BYTES = 8 << 20;
/** First size of a stream's staging buffer (it grows to what arrives between two flushes). */
const STAGE_BYTES = 64 * 1024;
/** Longest meta.json read. */
const MAX_META_BYTES = 256 * 1024;

/**
 * Writes one running capture's files. Text and log lines are buffered and appended in order in
 * the background (text before the log lines that name it, so a reader that has a line also finds
 * its text); memory is bounded by {@link wait}. Nothing is fsynced while running: after a power
 * loss the files may be shorter than their log says, and the sealing reads them defensively.
 */
export class RunningWriter {
  /** Text not yet written, per stream: `buffer[0, length)` (a fresh buffer after each flush). */
  private readonly texts = new Map<string, { buffer: Buffer; length: number }>();
  private lines: string[] = [];
  private buffered = 0;
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private error: unknown = null;
  private room: { promise: Promise<void>; resolve: () => void } | null = null;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly log: FileHandle,
    private readonly files: Map<string, FileHandle>,
  ) {}

  /**
   * Creates `running/<id>/` whole or not at all: made under a temporary name with meta.json and
   * empty files, then renamed. `fields` are the capture's own (command, cwd, sandbox, …).
   */
  static async create(layout: VaultLayout, id: string, streams: readonly string[], fields: Record<string, unknown>): Promise<RunningWriter> {
    if (!isRecordId(id)) throw new VaultError('bad-id', `invalid record id for a running capture`);
    for (const s of streams) if (!TEXT_FILE.test(`${s}.txt`)) throw new VaultError('bad-record', `bad stream name for a running capture`);
    const base = join(layout.root, RUNNING_DIR);
    await ensurePrivateDir(base);
    const temp = join(base, `.${id}.${randomBytes(6).toString('hex')}.tmp`);
    await mkdir(temp, { mode: PRIVATE_DIR_MODE });
    const meta: RunningMeta = { ...fields, format: RUNNING_FORMAT, id, started_at: String(fields.started_at ?? new Date().toISOString()), owner: currentOwner(), streams };
    try {
      const fh = await open(join(temp, RUNNING_META), fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, PRIVATE_FILE_MODE);
      try {
        await fh.chmod(PRIVATE_FILE_MODE);
        await fh.writeFile(`${JSON.stringify(meta)}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      for (const name of [RUNNING_LOG, ...streams.map((s) => `${s}.txt`)]) await (await createEmpty(join(temp, name))).close();
      await fsyncDir(temp);
      const dir = join(base, id);
      await rename(temp, dir);
      await fsyncDir(base);
      const open1 = (name: string): Promise<FileHandle> => open(join(dir, name), fsc.O_WRONLY | fsc.O_APPEND | fsc.O_NOFOLLOW);
      const log = await open1(RUNNING_LOG);
      const files = new Map<string, FileHandle>();
      for (const s of streams) files.set(s, await open1(`${s}.txt`));
      return new RunningWriter(dir, log, files);
    } catch (err) {
      await rm(temp, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** Appends settled text of a stream (copied). */
  text(stream: string, bytes: Uint8Array): void {
    if (bytes.length === 0 || this.closed || this.error !== null) return;
    // Copied into the stream's staging buffer: one allocation per flush, not per chunk.
    let stage = this.texts.get(stream);
    if (!stage) this.texts.set(stream, (stage = { buffer: Buffer.allocUnsafe(STAGE_BYTES), length: 0 }));
    if (stage.length + bytes.length > stage.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(stage.buffer.length * 2, stage.length + bytes.length));
      stage.buffer.copy(grown, 0, 0, stage.length);
      stage.buffer = grown;
    }
    stage.buffer.set(bytes, stage.length);
    stage.length += bytes.length;
    this.grew(bytes.length);
  }

  /** Appends one log line (a JSON array). */
  line(row: readonly unknown[]): void {
    if (this.closed || this.error !== null) return;
    const line = `${JSON.stringify(row)}\n`;
    this.lines.push(line);
    this.grew(line.length);
  }

  /**
   * A promise while more is buffered than the disk has taken (the caller pauses until it settles).
   * A write that failed (a full disk) ends the running record's growth, never the capture: the
   * raw bytes are what counts, and the capture's own failure, if any, comes from them.
   */
  wait(): Promise<void> | undefined {
    if (this.error !== null) return undefined;
    if (this.buffered < BACKLOG_BYTES) return undefined;
    if (!this.room) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.room = { promise, resolve };
    }
    return this.room.promise;
  }

  /** Writes everything buffered now; resolves when it is in the files. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // The staged text goes to the write; the stream stages on in a fresh buffer of the size it needed.
    const texts: [string, Buffer][] = [];
    for (const [stream, t] of this.texts) {
      if (t.length === 0) continue;
      texts.push([stream, t.buffer.subarray(0, t.length)]);
      t.buffer = Buffer.allocUnsafe(t.buffer.length);
      t.length = 0;
    }
    const lines = this.lines.join('');
    const bytes = this.buffered;
    this.lines = [];
    this.chain = this.chain.then(async () => {
      if (this.error !== null) return;
      try {
        for (const [stream, text] of texts) await writeAll(this.files.get(stream)!, text);
        if (lines.length > 0) await writeAll(this.log, Buffer.from(lines, 'utf8'));
      } catch (err) {
        // From here on nothing more is buffered (text and line drop it): the record stays short.
        this.error ??= err;
      }
      this.buffered -= bytes;
      if (this.room && this.buffered < BACKLOG_BYTES / 2) {
        this.room.resolve();
        this.room = null;
      }
    });
    return this.chain.then(() => {
      if (this.error !== null) throw this.error;
    });
  }

  /** Writes what is buffered and closes the files (the directory stays until {@link remove}). */
  async close(): Promise<void> {
    if (this.closed) return;
    const flushed = this.flush().catch((err: unknown) => err);
    this.closed = true;
    const err = await flushed;
    await this.log.close().catch(() => undefined);
    for (const fh of this.files.values()) await fh.close().catch(() => undefined);
    this.room?.resolve();
    if (err) throw err;
  }

  /** Removes the running directory (its sealed record, or its failure, replaces it). */
  async remove(): Promise<void> {
    await this.close().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  private grew(n: number): void {
    this.buffered += n;
    if (this.buffered >= FLUSH_BYTES) void this.flush().catch(() => undefined);
    else if (this.timer === null) this.timer = setTimeout(() => void this.flush().catch(() => undefined), FLUSH_MS);
  }
}

/** A running capture as a reader sees it: its meta, whether its owner still runs, and its files, opened. */
export interface RunningHandle {
  readonly id: string;
  readonly meta: RunningMeta;
  /** The owner's state now (asked again on each call). */
  owner(): OwnerState;
  /**
   * Complete log lines from byte `from` of log.jsonl on (at most `maxBytes` of them), parsed, and
   * where the next read starts. A torn or unparsable line (a power loss) ends the read there.
   */
  readLog(from: number, maxBytes?: number): Promise<{ rows: unknown[][]; next: number }>;
  /** Bytes of a stream's text file `[offset, offset + length)` (fewer when the file is shorter). */
  readText(stream: string, offset: number, length: number): Promise<Buffer>;
  /** Current size of a stream's text file. */
  textSize(stream: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens a running capture for reading, or resolves to null when there is none with this id. The
 * files are opened at once: a reader keeps reading them after the sealing removed the directory
 * (its last log line says it was sealed).
 */
export async function openRunning(layout: VaultLayout, id: string): Promise<RunningHandle | null> {
  if (!isRecordId(id)) throw new VaultError('bad-id', `invalid record id '${String(id).slice(0, 80)}'`);
  const dir = join(layout.root, RUNNING_DIR, id);
  let metaFh: FileHandle;
  try {
    metaFh = await open(join(dir, RUNNING_META), fsc.O_RDONLY | fsc.O_NOFOLLOW);
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return null;
    throw err;
  }
  let meta: RunningMeta;
  try {
    meta = parseMeta(await readBounded(metaFh, MAX_META_BYTES), id);
  } finally {
    await metaFh.close();
  }
  const ro = (name: string): Promise<FileHandle | null> => open(join(dir, name), fsc.O_RDONLY | fsc.O_NOFOLLOW).catch(() => null);
  const log = await ro(RUNNING_LOG);
  const texts = new Map<string, FileHandle | null>();
  for (const s of meta.streams) texts.set(s, await ro(`${s}.txt`));
  return {
    id,
    meta,
    owner: () => ownerState(meta.owner),
    async readLog(from, maxBytes = 1 << 20) {
      if (!log) return { rows: [], next: from };
      const buf = Buffer.alloc(maxBytes);
      const { bytesRead } = await log.read(buf, 0, maxBytes, from);
      const rows: unknown[][] = [];
      let at = 0;
      for (let nl = buf.indexOf(0x0a, at); nl >= 0 && nl < bytesRead; nl = buf.indexOf(0x0a, at)) {
        let row: unknown;
        try {
          row = JSON.parse(buf.toString('utf8', at, nl));
        } catch {
          break;
        }
        if (!Array.isArray(row)) break;
        rows.push(row);
        at = nl + 1;
      }
      return { rows, next: from + at };
    },
    async readText(stream, offset, length) {
      const fh = texts.get(stream);
      if (!fh || length <= 0) return Buffer.alloc(0);
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    },
    async textSize(stream) {
      const fh = texts.get(stream);
      return fh ? (await fh.stat()).size : 0;
    },
    async close() {
      await log?.close().catch(() => undefined);
      for (const fh of texts.values()) await fh?.close().catch(() => undefined);
    },
  };
}

/** Ids of the running captures (directories named by a record id), sorted. */
export async function runningIds(layout: VaultLayout): Promise<string[]> {
  return (await runningEntries(layout)).filter((e) => e.kind === 'running').map((e) => e.name).sort();
}

/** One entry of `running/`: a running capture, a start that did not finish, or something else. */
export interface RunningEntry {
  readonly name: string;
  readonly path: string;
  readonly kind: 'running' | 'starting' | 'other';
  /** For 'starting': the record id it was for. */
  readonly id?: string;
}

/** Every entry of `running/` (none when it does not exist). */
export async function runningEntries(layout: VaultLayout): Promise<RunningEntry[]> {
  const base = join(layout.root, RUNNING_DIR);
  let names: string[];
  try {
    names = await readdir(base);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
  const out: RunningEntry[] = [];
  for (const name of names.sort()) {
    const path = join(base, name);
    const st = await lstat(path).catch(() => null);
    const dir = st?.isDirectory() === true;
    const starting = STARTING.exec(name);
    if (dir && isRecordId(name)) out.push({ name, path, kind: 'running' });
    else if (dir && starting) out.push({ name, path, kind: 'starting', id: starting[1] });
    else out.push({ name, path, kind: 'other' });
  }
  return out;
}

/** Whether `name` is a file a running directory may hold. */
export function isRunningFile(name: string, streams: readonly string[]): boolean {
  return name === RUNNING_META || name === RUNNING_LOG || (TEXT_FILE.test(name) && streams.includes(name.slice(0, -4)));
}

/** Removes a running directory or an unfinished start (the sealed record or the failure replaces it). */
export async function removeRunning(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** Parses meta.json; VaultError 'bad-record' when it is not one. */
export function parseMeta(text: string, id: string): RunningMeta {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new VaultError('bad-record', `running capture ${id}: meta.json is not valid JSON`);
  }
  const m = v as Record<string, unknown>;
  const owner = asOwner(m?.owner);
  const streams = m?.streams;
  if (
    typeof v !== 'object' || v === null || m.format !== RUNNING_FORMAT || m.id !== id || owner === null || typeof m.started_at !== 'string' ||
    !Array.isArray(streams) || !streams.every((s) => typeof s === 'string' && TEXT_FILE.test(`${s}.txt`))
  ) {
    throw new VaultError('bad-record', `running capture ${id}: meta.json does not describe it`);
  }
  return { ...(m as object), owner, streams } as unknown as RunningMeta;
}

async function readBounded(fh: FileHandle, max: number): Promise<string> {
  const { size } = await fh.stat();
  if (size > max) throw new VaultError('too-large', `meta.json is ${size} bytes, more than ${max}`);
  return (await fh.readFile()).toString('utf8');
}

async function createEmpty(path: string): Promise<FileHandle> {
  const fh = await open(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, PRIVATE_FILE_MODE);
  await fh.chmod(PRIVATE_FILE_MODE);
  return fh;
}

async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off, null);
    off += bytesWritten;
  }
}
