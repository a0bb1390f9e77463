import { holdFileLock, type ReleaseLock } from '../audit/lock';
import type { VaultLayout } from './layout';

/**
 * How long a capture (or a second prune) waits for the retention lock. Generous on purpose: the
 * command has already run when a capture asks for it, so failing because a prune is busy would
 * lose its output.
 */
export const RETENTION_LOCK_TIMEOUT_MS = 10 * 60_000;

/** Options for {@link holdRetentionLock}. */
export interface RetentionLockOptions {
  /** Give up after this long. Default {@link RETENTION_LOCK_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

/**
 * Takes the vault's retention lock (`<root>/retention.lock`) and returns its release function.
 *
 * Why: prune decides which raw files to delete from a snapshot of the records, and a capture
 * that stores identical bytes (dedup: every empty stderr has the same digest) reuses an existing
 * raw file and writes its record afterwards. Prune holds this lock from its snapshot through its
 * last deletion; a capture holds it from just before its raw commits until its record is written.
 * So a new record's raw bytes are either committed after prune finished, or its record is in
 * prune's snapshot.
 *
 * The lock is never broken for its age (a prune of a big vault may take long); only when its
 * holder is a dead process on this host, as with the audit lock.
 */
export function holdRetentionLock(layout: VaultLayout, options: RetentionLockOptions = {}): Promise<ReleaseLock> {
  return holdFileLock(layout.retentionLockPath, { timeoutMs: options.timeoutMs ?? RETENTION_LOCK_TIMEOUT_MS, staleMs: Infinity });
}
