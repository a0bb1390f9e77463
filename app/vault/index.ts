// Public surface of the vault: import from here, not from the individual files.
export { Vault, MAX_VAULT_RECORDS, MIN_FREE_BYTES, type VaultOpenOptions, type PutRecordOptions, type RecordAudit, type StoredRecord } from './vault';
export { VaultError, type VaultErrorCode } from './errors';
export { defaultVaultDir, resolveVaultDir } from './location';
export { parseRef, formatRef, assertSha256, isSha256Hex, SHA256_HEX } from './ref';
export { newRecordId, assertRecordId, isRecordId, RECORD_ID } from './record-id';
export { validateRecord, type CaptureRecord, type RawStreamRef } from './record';
export type { RawWriter, RawCommit } from './raw-writer';
export type { RawWriterPool } from './raw-pool';
export { MAX_RECORD_BYTES, SUMMARY_LIMITS, type RecordList, type RecordReadError, type ScannedRecord, type ScanResult } from './records';
export type { VaultProblem, VaultProblemKind, VaultVerifyReport } from './verify';
export type { PruneOptions, PruneResult, PrunedRaw } from './prune';
export { AUDIT_FILE, RETENTION_LOCK_FILE, type VaultLayout } from './layout';
export { RETENTION_LOCK_TIMEOUT_MS, type RetentionLockOptions } from './retention';
export type { ReleaseLock } from '../audit/lock';
