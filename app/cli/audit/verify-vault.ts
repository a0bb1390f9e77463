import type { AuditLog } from '../../node/audit';
import type { Vault } from '../../node/vault';

/** What `audit verify` found: the chain, the records' entries and the anchor. */
export interface AuditVerifyReport {
  ok: boolean;
  entries: number;
  head: string;
  records: number;
  broken: { line: number; reason: string } | null;
  problems: string[];
  anchor: { hash: string; found: boolean; seq: number | null } | null;
}

/**
 * Checks the chain, then what the vault knows against it: every record must have its
 * `capture.stored` entry, at the seq and hash the record names when it names one (so a cut tail
 * shows), and an anchor given with --head must be one of the entries.
 */
export async function verifyAgainstVault(log: AuditLog, vault: Vault, anchor: string | undefined): Promise<AuditVerifyReport> {
  const stored = new Map<string, { seq: number; hash: string }>();
  let anchorSeq: number | null = null;
  const chain = await log.verify((entry) => {
    if (entry.action === 'capture.stored' && typeof entry.record === 'string') stored.set(entry.record, { seq: entry.seq, hash: entry.hash });
    if (entry.hash === anchor) anchorSeq = entry.seq;
  });
  const { records } = await vault.listRecords();
  const problems: string[] = [];
  for (const record of records) {
    const claimed = storedAt(record.audit);
    const found = stored.get(record.id);
    if (claimed && claimed.seq > chain.entries) {
      // Past a broken line nothing can be checked; past the end of an intact log, the tail is gone.
      if (chain.ok) problems.push(`record ${record.id} was stored with audit entry ${claimed.seq}, but the log ends at entry ${chain.entries} (its tail was cut off or rolled back)`);
    } else if (claimed && (found?.seq !== claimed.seq || found.hash !== claimed.hash)) {
      problems.push(`record ${record.id} names audit entry ${claimed.seq}, but that entry is not its capture.stored entry`);
    } else if (!claimed && !found && chain.ok) {
      problems.push(`record ${record.id} has no capture.stored entry in the audit log`);
    }
  }
  // Deleting the whole log leaves no broken chain behind; the records are the evidence.
  const emptied = chain.ok && chain.entries === 0 && records.length > 0;
  if (emptied) problems.length = 0;
  if (anchor !== undefined && anchorSeq === null) {
    problems.push(`the anchor ${anchor} is not an entry of the log: the log was cut or rewritten before it`);
  }
  const broken = !chain.ok
    ? { line: chain.line, reason: chain.reason }
    : emptied ? { line: 1, reason: `the log is empty or missing but the vault holds ${records.length} record(s)` } : null;
  return {
    ok: broken === null && problems.length === 0,
    entries: chain.entries,
    head: chain.head,
    records: records.length,
    broken,
    problems,
    anchor: anchor === undefined ? null : { hash: anchor, found: anchorSeq !== null, seq: anchorSeq },
  };
}

/** The `audit` field of a record, when it is a well-formed `{seq, hash}`. */
function storedAt(value: unknown): { seq: number; hash: string } | null {
  const v = value as { seq?: unknown; hash?: unknown } | null;
  return typeof v === 'object' && v !== null && Number.isSafeInteger(v.seq) && typeof v.hash === 'string' ? { seq: v.seq as number, hash: v.hash } : null;
}
