// Public surface of the review queue: import from here, not from the individual files.
export { RequestStore, type RequestStoreOptions, type Decision, type RequestAudit, type RequestAuditAction, type RequestReadError } from './store';
export { RequestError, type RequestErrorCode } from './errors';
export { REQUEST_ID, isRequestId, assertRequestId, newRequestId } from './id';
export { DEFAULT_REQUEST_TTL_MS, MAX_HEX_RANGE, MAX_TEXT_RANGE, MAX_EXTRACT_TEXT, MAX_EXTRACT_HITS, MAX_PENDING, MAX_REASON, MAX_SEARCH_TERM, MIN_DIGEST_RANGE, DIGEST_DISCLOSURE } from './limits';
export { storedRequestSchema, type StoredRequest, type RequestActor } from './record';
export { requestView, statusFields } from './view';
export { extractDigest } from './extract';
export type { NewRequest } from './validate';
