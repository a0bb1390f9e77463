import { newRecordId } from '../../vault';
import { RequestError } from './errors';

/**
 * Request ids: `req-` and a record-style id (`req-20261201T203000Z-1a2b3c4d`), so they sort by
 * creation time like records do. The pattern is also the file-name whitelist of `requests/`: an id
 * that does not match (`../x`, an absolute path, a NUL) names no file.
 */
export const REQUEST_ID = /^req-\d{8}T\d{6}Z-[0-9a-f]{8}$/;

/** A new time-sortable, random-suffixed request id. */
export function newRequestId(now: Date = new Date()): string {
  return `req-${newRecordId(now)}`;
}

/** True when `id` is a well-formed request id. */
export function isRequestId(id: unknown): id is string {
  return typeof id === 'string' && REQUEST_ID.test(id);
}

/** Throws RequestError('bad-id') unless `id` is a well-formed request id (the traversal guard). */
export function assertRequestId(id: string): void {
  if (!isRequestId(id)) throw new RequestError('bad-id', `invalid request id '${printable(id)}': expected req-YYYYMMDDTHHMMSSZ-xxxxxxxx`);
}

/** An id as it may appear in a message: printable ASCII, bounded (the caller's bytes, never raw). */
function printable(s: unknown): string {
  return String(s).slice(0, 60).replace(/[^\x20-\x7e]/g, '?');
}
