import { join } from 'node:path';
import { assertRecordId } from './record-id';
import { assertSha256 } from './ref';

/** Where everything lives inside a vault root. One place, so no module builds paths by hand. */
export interface VaultLayout {
  readonly root: string;
  /** `raw/` and `raw/sha256/`: content-addressed raw bytes. */
  readonly rawBase: string;
  readonly rawRoot: string;
  /** `records/`: one JSON file per capture. */
  readonly recordsDir: string;
  /** `tmp/`: raw bytes being written; never read by list/verify. */
  readonly tmpDir: string;
  /** `audit.jsonl`: the hash-chained audit log. */
  readonly auditPath: string;
  /** `retention.lock`: held by prune for its whole run and by a capture from raw commit to record write. */
  readonly retentionLockPath: string;
  /** `raw/sha256/<first 2 hex>/<hex>` for a validated digest. */
  rawPath(sha256: string): string;
  /** `records/<id>.json` for a validated id. */
  recordPath(id: string): string;
}

/** Name of the audit log file in the vault root. */
export const AUDIT_FILE = 'audit.jsonl';
/** Name of the retention lock file in the vault root (see holdRetentionLock). */
export const RETENTION_LOCK_FILE = 'retention.lock';

/** The layout of the vault rooted at absolute path `root`. */
export function vaultLayout(root: string): VaultLayout {
  const rawBase = join(root, 'raw');
  const rawRoot = join(rawBase, 'sha256');
  const recordsDir = join(root, 'records');
  return {
    root,
    rawBase,
    rawRoot,
    recordsDir,
    tmpDir: join(root, 'tmp'),
    auditPath: join(root, AUDIT_FILE),
    retentionLockPath: join(root, RETENTION_LOCK_FILE),
    rawPath(sha256) {
      assertSha256(sha256); // validation here means no caller can smuggle `..` into a path
      return join(rawRoot, sha256.slice(0, 2), sha256);
    },
    recordPath(id) {
      assertRecordId(id);
      return join(recordsDir, `${id}.json`);
    },
  };
}
