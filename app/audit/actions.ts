/** Every action the audit log records. */
export const AUDIT_ACTIONS = [
  // A capture, write-ahead: `started` is on disk before the command runs; `stored` (committing to
  // the record's bytes) or `failed` follows it.
  'capture.started',
  'capture.stored',
  'capture.failed',
  // A capture whose Airlock was killed (or lost power) while it ran: its running record sealed as
  // a record marked interrupted, with what it had stored (creates the record, like `stored`).
  'capture.interrupted',
  'raw.requested',
  'raw.granted',
  'raw.denied',
  'raw.opened',
  'extract.released',
  'raw.pruned',
  // Prune's marker beside a record whose raw retention ended (records themselves are write-once),
  // and an approved extract removed with the raw bytes it came from.
  'record.pruned',
  'request.pruned',
  'vault.verified',
  'audit.repaired',
  // Desktop app (app/services): grants end by revocation or expiry; refused bridge calls; imports.
  'raw.revoked',
  'raw.expired',
  // A grant approved on a running capture's stream goes on over the sealed artifact (its digest).
  'raw.continued',
  'bridge.refused',
  'artifact.imported',
  'text.copied',
  'text.exported',
  // The review queue (app/services/requests): an agent's request for a bounded extract, and the
  // reviewer's decision with the digest and size of what it released.
  'request.created',
  'request.approved',
  'request.denied',
  'request.expired',
] as const;

/** One audited action. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** True when `s` names an audit action. */
export function isAuditAction(s: unknown): s is AuditAction {
  return typeof s === 'string' && (AUDIT_ACTIONS as readonly string[]).includes(s);
}
