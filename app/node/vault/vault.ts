import { lstat } from 'node:fs/promises';
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
import { pathExists } from '../fs-atomic';
import { listRecords, readRecord, recordFiles, writeRecord, type RecordList } from './records';
import { verifyVault, type VaultVerifyReport } from './verify';

/** Options for {@link Vault.open}. */
export interface VaultOpenOptions {
  /** Create the vault (and its layout) if missing. Without it a missing vault is VaultError('no-vault'). */
  readonly create?: boolean;
}

/** Options for {@link Vault.putRecord}. */
export interface PutRecordOptions {
  /** Replace an existing record with the same id. Default false: records are write-once. */
  readonly overwrite?: boolean;
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
   * Validates and atomically writes a capture record. Every raw digest it names must already be
   * in the vault with the stated size (commit the RawWriters first) unless the record is marked
   * `raw_pruned_at`.
   */
  async putRecord(record: CaptureRecord, options: PutRecordOptions = {}): Promise<void> {
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
    await withWriteErrors(this.root, () => writeRecord(this.layout, record, options.overwrite === true));
  }

  /** All records sorted by id (creation order); unreadable files are reported in `errors`. */
  async listRecords(): Promise<RecordList> {
    return listRecords(this.layout);
  }

  /** Ids of all record files, sorted (without reading them). */
  async recordIds(): Promise<string[]> {
    return (await recordFiles(this.layout)).map((name) => name.slice(0, -'.json'.length));
  }

  /** One record by id. The id is validated first: traversal, absolute paths and NUL are rejected. */
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

  /** Re-hashes all raw files and checks records and modes; see verifyVault. */
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
