import { createHash } from 'node:crypto';
import type { Actor } from './identity';
import { isAuditAction, type AuditAction } from './actions';
import { canonicalJson } from './canonical-json';
import type { AuditValue } from './details';

/** The `prev` of the first entry: 64 zeros. */
export const GENESIS_PREV = '0'.repeat(64);

/** One line of the audit log. Details sit at the top level beside the fixed fields. */
export interface AuditEntry {
  /** 1-based position in the log; equals the line number. */
  readonly seq: number;
  /** ISO 8601 time of the append. */
  readonly ts: string;
  readonly actor: Actor;
  readonly action: AuditAction;
  /** `hash` of the previous entry, or GENESIS_PREV. */
  readonly prev: string;
  /** sha256(prev + '\n' + canonicalJson(entry without hash)). */
  readonly hash: string;
  readonly [detail: string]: AuditValue | Actor | undefined;
}

/** Computes an entry's hash from everything but its `hash` field. */
export function entryHash(entry: Readonly<Record<string, unknown>>): string {
  const { hash: _ignored, ...rest } = entry;
  void _ignored;
  return createHash('sha256')
    .update(`${String(rest.prev)}\n${canonicalJson(rest)}`)
    .digest('hex');
}

/**
 * Checks the fixed fields of a parsed line; returns the first problem as text, or null when the
 * shape is right. Hash and chain checks are the verifier's job.
 */
export function entryShapeProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'line is not a JSON object';
  const e = v as Record<string, unknown>;
  if (typeof e.seq !== 'number' || !Number.isSafeInteger(e.seq) || e.seq < 1) return 'seq is not a positive integer';
  if (typeof e.ts !== 'string' || Number.isNaN(Date.parse(e.ts))) return 'ts is not a timestamp';
  const actor = e.actor as Record<string, unknown> | null;
  if (typeof actor !== 'object' || actor === null || typeof actor.user !== 'string' || typeof actor.host !== 'string') return 'actor is not {user, host}';
  if (!isAuditAction(e.action)) return 'action is not a known audit action';
  if (typeof e.prev !== 'string' || !/^[0-9a-f]{64}$/.test(e.prev)) return 'prev is not a sha256 hex digest';
  if (typeof e.hash !== 'string' || !/^[0-9a-f]{64}$/.test(e.hash)) return 'hash is not a sha256 hex digest';
  return null;
}
