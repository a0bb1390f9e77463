import { lstat, statfs } from 'node:fs/promises';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { resolve } from 'node:path';
import { VaultError } from './errors';
import { vaultLayout, type VaultLayout } from './layout';
import { prepareRoot, withWriteErrors } from './open';
import { pruneVaultRaw, type PruneOptions, type PruneResult } from './prune';
import { createRawWriter, type RawWriter } from './raw-writer';
import { RawWriterPool } from './raw-pool';
import type { ReleaseLock } from '../audit/lock';
import { holdRetentionLock, type RetentionLockOptions } from './retention';
import { validateRecord, type CaptureRecord } from './record';
import { pathExists } from '../files/fs-atomic';
import { AuditLog, type AuditDetails, type AuditEntry } from '../audit';
import type { ProjectionLimits } from '../json/project';
import { eachRecord, listRecords, MAX_RECORD_BYTES, readRecord, readRecordChunks, recordFiles, scanRecord, serializeRecord, sha256Hex, writeRecordBytes, type RecordList, type ScannedRecord, type ScanResult } from './records';
import { verifyVault, type VaultVerifyReport } from './verify';
import { openRunning, removeRunning, RunningWriter, runningEntries, runningIds, type RunningEntry, type RunningHandle } from './running';
import { adoptRawTemp } from './adopt-raw';
import type { RawCommit } from './raw-writer';

/** Options for {@link Vault.open}. */
export interface VaultOpenOptions {
  /** Create the vault (and its layout) if missing. Without it a missing vault is VaultError('no-vault'). */
  readonly create?: boolean;
}

/** Options for {@link Vault.putRecord}. */
export interface PutRecordOptions {
  /** The entry that creates the record: `capture.stored` (default), `capture.interrupted` or `artifact.imported`. */
  readonly action?: 'capture.stored' | 'capture.interrupted' | 'artifact.imported';
  /** Further details of that entry (ids, digests, status: see validateDetails). */
  readonly details?: AuditDetails;
  /** The log to append to (default: this vault's, as the current user). */
  readonly audit?: RecordAudit;
}

/**
 * Most records a vault holds: what reads every record (verify, prune, list) keeps about each is
 * an id and a digest, so this bounds their memory too. Prune's markers do not free a slot:
 * records are kept for good; a full vault needs a new one.
 */
export const MAX_VAULT_RECORDS = 100_000;
/** Free space a capture leaves on the vault's file system at least: room for its closing audit entries. */
export const MIN_FREE_BYTES = 4 << 20;

/** The part of AuditLog that stores a record (its append, with the write under the log's lock). */
export type RecordAudit = Pick<AuditLog, 'append'>;

/** A record as stored: the audit entry that created it, and the digest and size it committed to. */
export interface StoredRecord {
  readonly entry: AuditEntry;
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * The restricted artifact vault: content-addressed raw bytes (`raw/sha256/..`), one JSON record
 * per capture (`records/`), in-progress writes (`tmp/`) and the audit log (`audit.jsonl`).
 * Directories are 0700 and files 0600, set with chmod rather than trusted to the umask.
 */
export class Vault {
  private constructor(readonly layout: VaultLayout) {}

  /** Absolute path of the vault root. */
  get root(): string {
    return this.layout.root;
  }

  /**
   * Opens the vault at `dir` (resolved to an absolute path). Refuses a root that is not ours or
   * that group/others can access (see prepareRoot for the one tightening exception).
   */
  static async open(dir: string, options: VaultOpenOptions = {}): Promise<Vault> {
    const layout = vaultLayout(resolve(dir));
    await prepareRoot(layout, options.create === true);
    return new Vault(layout);
  }

  /** Starts streaming raw bytes into the vault; see {@link RawWriter}. */
  createRawWriter(): RawWriter {
    return createRawWriter(this.layout);
  }

  /**
   * Raw writers that hash and write on a worker thread (see RawWriterPool): for captures, where
   * the calling thread is busy sanitizing. Same files, modes, dedup and publication.
   */
  rawWriterPool(): RawWriterPool {
    return new RawWriterPool(this.layout);
  }

  /**
   * Takes the vault's retention lock and returns its release function. A capture holds it from
   * just before committing its raw writers until its record is written, so a concurrent prune
   * (which holds it for its whole run) cannot delete bytes the new record reuses. Waits up to
   * 10 minutes by default; see holdRetentionLock.
   */
  async holdRetentionLock(options: RetentionLockOptions = {}): Promise<ReleaseLock> {
    return withWriteErrors(this.root, () => holdRetentionLock(this.layout, options));
  }

  /**
   * Stores a new record, bound to the audit chain: it is validated (every raw digest it names must
   * already be in the vault with the stated size, unless it is marked `raw_pruned_at`), serialized,
   * and its bytes are written atomically under the audit log's lock just before the entry that
   * creates it, which commits to their sha256 and size (`record_sha256`, `record_bytes`). Records
   * are write-once: nothing rewrites them (prune leaves a marker beside them), so `vault verify`
   * can hold every byte of a record against the entry that created it. A record larger than
   * MAX_RECORD_BYTES is refused ('too-large').
   */
  async putRecord(record: CaptureRecord, options: PutRecordOptions = {}): Promise<StoredRecord> {
    validateRecord(record);
    if (record.raw_pruned_at === undefined) {
      for (const [stream, ref] of Object.entries(record.raw)) {
        const st = await lstat(this.layout.rawPath(ref.sha256)).catch(() => null);
        if (!st) throw new VaultError('raw-missing', `record ${record.id}: ${stream} raw bytes ${ref.sha256} are not in the vault`);
        if (st.size !== ref.size) {
          throw new VaultError('bad-record', `record ${record.id}: ${stream} says ${ref.size} bytes but the stored raw file has ${st.size}`);
        }
      }
    }
    const bytes = serializeRecord(record);
    if (bytes.length > MAX_RECORD_BYTES) throw new VaultError('too-large', `record ${record.id} would be ${bytes.length} bytes, more than the vault's ${MAX_RECORD_BYTES} per record`);
    const sha256 = sha256Hex(bytes);
    const audit = options.audit ?? AuditLog.forVault(this.root);
    const entry = await audit.append(options.action ?? 'capture.stored', { ...options.details, record: record.id, record_sha256: sha256, record_bytes: bytes.length }, async () => {
      await withWriteErrors(this.root, () => writeRecordBytes(this.layout, record.id, bytes, false));
    });
    return { entry, sha256, bytes: bytes.length };
  }

  /**
   * Writes a record with no audit entry: only for a capture whose command already ran when the
   * audit log refused its `capture.stored` entry, so its output is not lost. `vault verify` and
   * `audit verify` report it as unbound.
   */
  async writeUnboundRecord(record: CaptureRecord): Promise<void> {
    validateRecord(record);
    await withWriteErrors(this.root, () => writeRecordBytes(this.layout, record.id, serializeRecord(record), false));
  }

  /**
   * Refuses (VaultError 'full') a new capture the vault cannot take: MAX_VAULT_RECORDS records
   * already, or less than MIN_FREE_BYTES free on its file system (then not even the entry saying
   * the capture failed would fit).
   */
  async assertRoom(): Promise<void> {
    const { bavail, bsize } = await statfs(this.root);
    if (bavail * bsize < MIN_FREE_BYTES) throw new VaultError('full', `vault ${terminalSafeLine(this.root)}: its file system has less than ${MIN_FREE_BYTES >> 20} MiB free; prune it (airlock vault prune) or free space`);
    const records = (await recordFiles(this.layout)).length;
    if (records >= MAX_VAULT_RECORDS) throw new VaultError('full', `vault ${terminalSafeLine(this.root)} holds ${records} records, its limit; start a new vault (--vault DIR)`);
  }

  /**
   * Creates the running record of a capture that is about to start (`running/<id>/`, see
   * running.ts): `fields` are what is known now (command, cwd, sandbox, …). The sealed record
   * replaces it.
   */
  async startRunning(id: string, streams: readonly string[], fields: Record<string, unknown>): Promise<RunningWriter> {
    return withWriteErrors(this.root, () => RunningWriter.create(this.layout, id, streams, fields));
  }

  /** A running capture opened for reading (its meta, owner and files), or null when none has this id. */
  async openRunning(id: string): Promise<RunningHandle | null> {
    return openRunning(this.layout, id);
  }

  /** Ids of the captures with a running record, sorted (sealed ones whose files are left over included). */
  async runningIds(): Promise<string[]> {
    return runningIds(this.layout);
  }

  /** Every entry of `running/`: running captures, starts that did not finish, and anything else there. */
  async runningEntries(): Promise<RunningEntry[]> {
    return runningEntries(this.layout);
  }

  /** Removes a running record's directory, or an unfinished start (an entry of {@link runningEntries}). */
  async removeRunning(entry: RunningEntry): Promise<void> {
    if (entry.kind === 'other') throw new VaultError('bad-record', `${entry.name} in running/ is not a running capture`);
    await withWriteErrors(this.root, () => removeRunning(entry.path));
  }

  /**
   * Stores what a dead capture's raw writer left in `tmp/` as a raw artifact (see adoptRawTemp);
   * call it holding the retention lock.
   */
  async adoptRawTemp(name: string | null): Promise<RawCommit> {
    return withWriteErrors(this.root, () => adoptRawTemp(this.layout, name));
  }

  /** Whether a record file with this id exists. */
  async recordExists(id: string): Promise<boolean> {
    return pathExists(this.layout.recordPath(id));
  }

  /**
   * Every record's kept fields (long strings and arrays as their head, see SUMMARY_LIMITS), sorted
   * by id; unreadable files are reported in `errors`. Holds them all: commands that look at every
   * record stream them with {@link Vault.eachRecord} instead.
   */
  async listRecords(): Promise<RecordList> {
    return listRecords(this.layout);
  }

  /** Every record, one at a time in id order, read as a stream (bounded memory whatever its size). */
  eachRecord(limits?: ProjectionLimits): AsyncGenerator<ScanResult> {
    return eachRecord(this.layout, limits);
  }

  /** Hands a record file's bytes on in chunks (vault show --json re-writes them as it reads). */
  async readRecordBytes(id: string, onChunk: (chunk: Buffer) => void | Promise<void>): Promise<void> {
    return readRecordChunks(this.layout, id, onChunk);
  }

  /** One record read as a stream: its kept fields and the digest of its bytes; see scanRecord. */
  async scanRecord(id: string, limits?: ProjectionLimits, afterChunk?: () => Promise<void>): Promise<ScannedRecord> {
    return scanRecord(this.layout, id, limits, afterChunk);
  }

  /** Ids of all record files, sorted (without reading them). */
  async recordIds(): Promise<string[]> {
    return (await recordFiles(this.layout)).map((name) => name.slice(0, -'.json'.length));
  }

  /**
   * One whole record by id (at most MAX_RECORD_BYTES, else VaultError 'too-large'). The id is
   * validated first: traversal, absolute paths and NUL are rejected.
   */
  async getRecord(id: string): Promise<CaptureRecord> {
    return readRecord(this.layout, id);
  }

  /** Whether raw bytes with this digest are stored. Throws VaultError('bad-ref') for a malformed digest. */
  async hasRaw(sha256: string): Promise<boolean> {
    return pathExists(this.layout.rawPath(sha256));
  }

  /**
   * Filesystem path of the raw bytes for `sha256` (64 lowercase hex, validated). For the
   * authorized byte viewer and extract paths only; never hand it to an agent.
   */
  rawPath(sha256: string): string {
    return this.layout.rawPath(sha256);
  }

  /** Re-hashes all raw files, holds every record and request against the audit entries that made them, checks modes; see verifyVault. */
  async verify(): Promise<VaultVerifyReport> {
    return verifyVault(this.layout);
  }

  /**
   * Deletes raw bytes of records older than `olderThanMs` before `now`, marking those records
   * `raw_pruned_at`; also removes stale temp files. See pruneVaultRaw for the exact policy.
   */
  async pruneRaw(olderThanMs: number, now: Date = new Date(), options: PruneOptions = {}): Promise<PruneResult> {
    return withWriteErrors(this.root, () => pruneVaultRaw(this.layout, olderThanMs, now, options));
  }
}
