import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fsyncDir, PRIVATE_FILE_MODE } from '../fs-atomic';
import { currentActor, type Actor } from '../identity';
import { isAuditAction, type AuditAction } from './actions';
import { validateDetails, type AuditDetails } from './details';
import { entryHash, entryShapeProblem, GENESIS_PREV, type AuditEntry } from './entry';
import { readLines } from './lines';
import { withFileLock, type FileLockOptions } from './lock';
import { readTail } from './tail';
import { verifyAuditFile, type AuditVerifyResult } from './verify';

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
   */
  append(action: AuditAction, details: AuditDetails = {}): Promise<AuditEntry> {
    if (!isAuditAction(action)) return Promise.reject(new TypeError(`unknown audit action '${String(action).slice(0, 40)}'`));
    let checked: AuditDetails;
    try {
      checked = validateDetails(details);
    } catch (err) {
      return Promise.reject(err);
    }
    const run = this.queue.then(() => withFileLock(this.lockPath, () => this.appendLocked(action, checked), this.options.lock));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Checks the whole chain; see verifyAuditFile. */
  verify(): Promise<AuditVerifyResult> {
    return verifyAuditFile(this.path);
  }

  /** Every line, parsed where possible; for display. Does not check the chain (use verify). */
  async list(): Promise<AuditLine[]> {
    const out: AuditLine[] = [];
    try {
      for await (const { line, text, complete } of readLines(this.path)) {
        try {
          const parsed: unknown = JSON.parse(text);
          const problem = entryShapeProblem(parsed);
          out.push(problem ? { line, error: problem } : { line, entry: parsed as AuditEntry });
        } catch {
          out.push({ line, error: complete ? 'not valid JSON' : 'truncated line' });
        }
      }
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return out;
      throw err;
    }
    return out;
  }

  private async appendLocked(action: AuditAction, details: AuditDetails): Promise<AuditEntry> {
    // O_APPEND: the write lands at the end even if something else (wrongly) appended meanwhile;
    // O_NOFOLLOW: a symlink swapped in for the log is refused, not written through.
    const fh = await open(this.path, fsc.O_RDWR | fsc.O_APPEND | fsc.O_CREAT | fsc.O_NOFOLLOW, PRIVATE_FILE_MODE);
    try {
      await fh.chmod(PRIVATE_FILE_MODE);
      const tail = await readTail(fh);
      let prev = GENESIS_PREV;
      let seq = 1;
      if (tail.lastLine !== null) {
        if (!tail.endsWithNewline) throw new AuditLogDamagedError(`audit log ${this.path} ends with a partial line; run 'airlock audit verify'`);
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
      // One write call per entry: readers and a crash see the whole line or a torn tail that
      // verify reports, never two entries interleaved.
      const { bytesWritten } = await fh.write(line, 0, line.length);
      if (bytesWritten !== line.length) throw new Error(`short write to audit log ${this.path}`);
      await fh.sync();
      if (tail.size === 0) await fsyncDir(dirname(this.path)); // a new file's name must be durable too
      return entry;
    } finally {
      await fh.close();
    }
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
