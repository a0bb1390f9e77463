import { randomBytes } from 'node:crypto';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from './errors';

/**
 * Record ids: UTC timestamp to the second, then 8 random hex digits, e.g.
 * `20261130T011500Z-1a2b3c4d`. Lexical order is creation order (to the second). The pattern is
 * also the file-name whitelist, so no id can name a path outside `records/`.
 */
export const RECORD_ID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;

/** A new time-sortable, random-suffixed record id for the instant `now`. */
export function newRecordId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** True when `id` is a well-formed record id. */
export function isRecordId(id: unknown): id is string {
  return typeof id === 'string' && RECORD_ID.test(id);
}

/**
 * Throws VaultError('bad-id') unless `id` is a well-formed record id. This is the guard against
 * path traversal (`../x`), absolute paths, separators and NUL bytes in ids that come from users.
 */
export function assertRecordId(id: string): void {
  if (!isRecordId(id)) {
    throw new VaultError(
      'bad-id',
      `invalid record id '${terminalSafeLine(String(id).slice(0, 80))}': expected YYYYMMDDTHHMMSSZ-xxxxxxxx (8 lowercase hex digits)`,
    );
  }
}
