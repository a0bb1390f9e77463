// Public surface of the audit log: import from here, not from the individual files.
export { AuditLog, AuditLogDamagedError, AUDIT_LOCK_FILE, type AuditLogOptions, type AuditLine, type AuditRepairResult } from './log';
export { AUDIT_ACTIONS, isAuditAction, type AuditAction } from './actions';
export { validateDetails, AuditDetailsError, RESERVED_KEYS, type AuditDetails, type AuditValue } from './details';
export { entryHash, GENESIS_PREV, type AuditEntry } from './entry';
export { canonicalJson } from './canonical-json';
export { verifyAuditFile, type AuditVerifyResult, type VerifiedEntry } from './verify';
export { withFileLock, holdFileLock, pidAlive, type FileLockOptions, type ReleaseLock } from './lock';
export { contentDigest } from './content-digest';
