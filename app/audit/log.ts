import { createHash, randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { access, open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncDir, isErrno, PRIVATE_FILE_MODE, writeFileAtomic } from '../files/fs-atomic';
import { currentActor, type Actor } from './identity';
import { isAuditAction, type AuditAction } from './actions';
import { validateDetails, type AuditDetails } from './details';
import { entryHash, entryShapeProblem, GENESIS_PREV, type AuditEntry } from './entry';
import { readLines } from './lines';
import { withFileLock, type FileLockOptions } from './lock';
import { readTail } from './tail';
import { verifyAuditFile, type AuditVerifyResult, type VerifiedEntry } from './verify';

/** Name of the lock file beside the audit log. */
export const AUDIT_LOCK_FILE = 'audit.lock';

/** An entry line longer than this is refused; details limits keep real entries far below it. */
const MAX_LINE_BYTES = 64 * 1024;

/** Options for {@link AuditLog}. */
export interface AuditLogOptions {
  /** Who appends; default: the current OS user and host. */
  readonly actor?: Actor;
  /** Clock for `ts`; tests pin it. */
  readonly now?: () => Date;
  readonly lock?: FileLockOptions;
}

/** The log cannot be appended to safely because its tail is damaged. */
export class AuditLogDamagedError extends Error {
  override readonly name = 'AuditLogDamagedError';
}

/** What {@link AuditLog.repairTail} did. */
export type AuditRepairResult =
  | { readonly repaired: false; readonly entries: number }
  | { readonly repaired: true; readonly entries: number; readonly line: number; readonly removedBytes: number; readonly aside: string; readonly entry: AuditEntry };

/** A line of the log as `list` returns it: the parsed entry, or why the line could not be read. */
export type AuditLine = { readonly line: number; readonly entry: AuditEntry } | { readonly line: number; readonly error: string };

/**
 * The append-only, hash-chained audit log (`audit.jsonl`, mode 0600). Appends from several
 * processes are serialized with a lock file; within one process they are also queued, so the
 * lock is contended only across processes.
 */
export class AuditLog {
  private readonly actor: Actor;
  private readonly now: () => Date;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly options: AuditLogOptions = {},
  ) {
    this.actor = options.actor ?? currentActor();
    this.now = options.now ?? (() => new Date());
  }

  /** The audit log of the vault rooted at `vaultRoot`. */
  static forVault(vaultRoot: string, options: AuditLogOptions = {}): AuditLog {
    return new AuditLog(join(vaultRoot, 'audit.jsonl'), options);
  }

  /** Path of the lock file that serializes appenders. */
  get lockPath(): string {
    return join(dirname(this.path), AUDIT_LOCK_FILE);
  }

  /**
   * Appends one entry and resolves to it once it is on disk (fsynced). Details are validated
   * first (metadata only, see validateDetails). Refuses with AuditLogDamagedError when the last
   * line is torn or does not check out, rather than chaining onto something unverifiable.
   *
   * `beforeWrite` runs under the log's lock with the finished entry (its seq and hash are final)
   * before the line is written, e.g. to store a record that names the entry it is audited by; if
   * it throws, nothing is appended. A failed write (full disk) truncates the log back to its
   * previous size, so no torn line is left behind.
   */
  append(action: AuditAction, details: AuditDetails = {}, beforeWrite?: (entry: AuditEntry) => Promise<void>): Promise<AuditEntry> {
    if (!isAuditAction(action)) return Promise.reject(new TypeError(`unknown audit action '${String(action).slice(0, 40)}'`));
    let checked: AuditDetails;
    try {
      checked = validateDetails(details);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.locked(async () => {
      const fh = await this.openLog();
      try {
        const next = await this.nextEntry(fh, action, checked);
        await beforeWrite?.(next.entry);
        await this.writeLine(fh, next.line, next.size);
        return next.entry;
      } finally {
        await fh.close();
      }
    });
  }

  /**
   * Resolves when an append would be accepted now: the log (or its directory) is writable and its
   * tail checks out. A capture calls this before it runs the command, because a capture that
   * cannot be recorded must not run.
   */
  assertAppendable(): Promise<void> {
    return this.locked(async () => {
      // Without O_CREAT: checking must not create the log; a missing one needs a writable directory.
      const fh = await open(this.path, fsc.O_RDWR | fsc.O_APPEND | fsc.O_NOFOLLOW).catch((err: unknown) => {
        if (isErrno(err, 'ENOENT')) return null;
        throw err;
      });
      if (fh === null) return access(dirname(this.path), fsc.W_OK | fsc.X_OK);
      try {
        await this.nextEntry(fh, 'capture.stored', {});
      } finally {
        await fh.close();
      }
    });
  }

  /**
   * Repairs a damaged tail: when the only bad line is the last one (a torn append, a partial
   * line), its bytes are moved aside into `audit.torn-<time>-<random>.bin` beside the log (0600,
   * written before the log is touched), the log is truncated to its intact entries, and an
   * `audit.repaired` entry records what was removed (size, sha256, line, file). A log that is
   * broken before its last line is refused: that is not a torn append, and dropping entries
   * would destroy evidence.
   */
  repairTail(): Promise<AuditRepairResult> {
    return this.locked(async () => {
      const result = await this.verify();
      if (result.ok) return { repaired: false, entries: result.entries };
      if (!result.atTail) {
        throw new AuditLogDamagedError(
          `audit log ${this.path} is broken at line ${result.line} (${result.reason}) and lines follow it; repair handles only a damaged last line, so nothing was changed`,
        );
      }
      const fh = await this.openLog();
      try {
        const { size } = await fh.stat();
        const torn = Buffer.alloc(size - result.validBytes);
        await fh.read(torn, 0, torn.length, result.validBytes);
        const aside = join(dirname(this.path), `audit.torn-${this.now().toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}.bin`);
        await writeFileAtomic(aside, torn, { exclusive: true });
        await fh.truncate(result.validBytes);
        await fh.sync();
        const details: AuditDetails = {
          line: result.line,
          reason: result.reason.slice(0, 200),
          removed_bytes: torn.length,
          removed_sha256: createHash('sha256').update(torn).digest('hex'),
          kept_aside: basename(aside),
        };
        const next = await this.nextEntry(fh, 'audit.repaired', validateDetails(details));
        await this.writeLine(fh, next.line, next.size);
        return { repaired: true, entries: result.entries + 1, line: result.line, removedBytes: torn.length, aside, entry: next.entry };
      } finally {
        await fh.close();
      }
    });
  }

  /** Checks the whole chain; see verifyAuditFile. */
  verify(onEntry?: (entry: VerifiedEntry) => void): Promise<AuditVerifyResult> {
    return verifyAuditFile(this.path, onEntry);
  }

  /**
   * Entry number `seq`, read as a stream and held to the chain: every line up to it and the one
   * after it (whose `prev` must be its hash) must check out, so an entry edited in place is not
   * returned. Null when the log ends before it or the chain breaks on the way.
   */
  async entryAt(seq: number): Promise<AuditEntry | null> {
    let prev = GENESIS_PREV;
    let found: AuditEntry | null = null;
    try {
      for await (const { line, text, complete } of readLines(this.path)) {
        if (!complete) return null;
        let e: AuditEntry;
        try {
          e = JSON.parse(text) as AuditEntry;
        } catch {
          return null;
        }
        if (entryShapeProblem(e) || e.seq !== line || e.prev !== prev || entryHash(e) !== e.hash || JSON.stringify(e) !== text) return null;
        if (found) return found; // the next entry links to it
        if (line === seq) found = e;
        prev = e.hash;
      }
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return null;
      throw err;
    }
    return found;
  }

  /** Every line, parsed where possible, as a stream; for display. Does not check the chain (use verify). */
  async *lines(): AsyncGenerator<AuditLine> {
    try {
      for await (const { line, text, complete } of readLines(this.path)) {
        try {
          const parsed: unknown = JSON.parse(text);
          const problem = entryShapeProblem(parsed);
          yield problem ? { line, error: problem } : { line, entry: parsed as AuditEntry };
        } catch {
          yield { line, error: complete ? 'not valid JSON' : 'truncated line' };
        }
      }
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return;
      throw err;
    }
  }

  /** Every line at once (see lines); for tests and small logs. */
  async list(): Promise<AuditLine[]> {
    const out: AuditLine[] = [];
    for await (const l of this.lines()) out.push(l);
    return out;
  }

  /** Runs `fn` under the cross-process lock, queued behind this process's earlier calls. */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => withFileLock(this.lockPath, fn, this.options.lock));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async openLog(): Promise<FileHandle> {
    // O_APPEND: the write lands at the end even if something else (wrongly) appended meanwhile;
    // O_NOFOLLOW: a symlink swapped in for the log is refused, not written through.
    const fh = await open(this.path, fsc.O_RDWR | fsc.O_APPEND | fsc.O_CREAT | fsc.O_NOFOLLOW, PRIVATE_FILE_MODE);
    try {
      await fh.chmod(PRIVATE_FILE_MODE);
    } catch (err) {
      await fh.close();
      throw err;
    }
    return fh;
  }

  /** The entry that would come next, serialized; refuses a damaged tail. */
  private async nextEntry(fh: FileHandle, action: AuditAction, details: AuditDetails): Promise<{ entry: AuditEntry; line: Buffer; size: number }> {
    const tail = await readTail(fh);
    let prev = GENESIS_PREV;
    let seq = 1;
    if (tail.lastLine !== null) {
      if (!tail.endsWithNewline) throw new AuditLogDamagedError(`audit log ${this.path} ends with a partial line; run 'airlock audit repair'`);
      const last = parseLast(tail.lastLine);
      if (!last) throw new AuditLogDamagedError(`last entry of audit log ${this.path} does not check out; run 'airlock audit verify'`);
      prev = last.hash;
      seq = last.seq + 1;
    }
    // Field order is for human readers; the hash is over canonical (sorted) JSON.
    const body: Record<string, unknown> = { seq, ts: this.now().toISOString(), actor: this.actor, action, ...details, prev };
    const entry = { ...body, hash: entryHash(body) } as AuditEntry;
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8');
    if (line.length > MAX_LINE_BYTES) throw new RangeError(`audit entry is ${line.length} bytes; the limit is ${MAX_LINE_BYTES}`);
    return { entry, line, size: tail.size };
  }

  /**
   * Writes one entry line at the end of a log of `size` bytes and fsyncs it. One write call per
   * entry: readers and a crash see the whole line or a torn tail that verify reports, never two
   * entries interleaved. On failure (ENOSPC, EIO, a short write) the file is truncated back to
   * `size`, so the log stays appendable.
   */
  private async writeLine(fh: FileHandle, line: Buffer, size: number): Promise<void> {
    try {
      const { bytesWritten } = await fh.write(line, 0, line.length);
      if (bytesWritten !== line.length) throw Object.assign(new Error('short write'), { code: 'EIO' });
      await fh.sync();
    } catch (err) {
      const rolledBack = await fh.truncate(size).then(() => fh.sync()).then(() => true, () => false);
      const code = (err as { code?: unknown }).code ?? (err as Error).message;
      throw new AuditLogDamagedError(
        rolledBack
          ? `could not append to audit log ${this.path} (${String(code)}); it was rolled back to its previous ${size} bytes`
          : `could not append to audit log ${this.path} (${String(code)}) nor roll it back; run 'airlock audit repair'`,
      );
    }
    if (size === 0) await fsyncDir(dirname(this.path)); // a new file's name must be durable too
  }
}

/** Parses the last line and checks its own hash; null if it does not hold up. */
function parseLast(text: string): { seq: number; hash: string } | null {
  try {
    const v: unknown = JSON.parse(text);
    if (entryShapeProblem(v)) return null;
    const e = v as Record<string, unknown> & { seq: number; hash: string };
    return entryHash(e) === e.hash ? e : null;
  } catch {
    return null;
  }
}
