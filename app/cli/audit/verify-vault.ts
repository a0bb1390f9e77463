import type { AuditLog } from '../../audit';
import type { Vault } from '../../vault';
import { checkBindings, indexAudit } from '../../vault/bindings';
import { recordFiles } from '../../vault/records';

/** What `audit verify` found: the chain, the records' entries and the anchor. */
export interface AuditVerifyReport {
  ok: boolean;
  entries: number;
  head: string;
  records: number;
  broken: { line: number; reason: string } | null;
  problems: string[];
  anchor: { hash: string; found: boolean; seq: number | null } | null;
  /** Captures whose `capture.started` has no outcome after it (traces of a crash or a failed store, not damage). */
  unfinished: { record: string; seq: number }[];
}

/**
 * Checks the chain, then what the vault holds against it (checkBindings): every record, prune
 * marker and request must be exactly what the entry that made or last changed it committed to, so
 * an edited record or extract, a planted one, or a log whose tail (with a record's entry) was cut
 * off all show. With an anchor (a head printed earlier and kept elsewhere), the entry must still
 * be in the log: a log rewritten from before it, entries and commitments recomputed, is caught.
 */
export async function verifyAgainstVault(log: AuditLog, vault: Vault, anchor: string | undefined): Promise<AuditVerifyReport> {
  const index = await indexAudit(log.path, anchor);
  const { chain } = index;
  const problems = (await checkBindings(vault.layout, index)).map((p) => p.detail);
  const records = (await recordFiles(vault.layout)).length;
  // Deleting the whole log leaves no broken chain behind; the records are the evidence.
  const emptied = chain.ok && chain.entries === 0 && records > 0;
  if (emptied) problems.length = 0;
  if (anchor !== undefined && index.anchorSeq === null) {
    problems.push(`the anchor ${anchor} is not an entry of the log: the log was cut or rewritten before it`);
  }
  const broken = !chain.ok
    ? { line: chain.line, reason: chain.reason }
    : emptied ? { line: 1, reason: `the log is empty or missing but the vault holds ${records} record(s)` } : null;
  return {
    ok: broken === null && problems.length === 0,
    entries: chain.entries,
    head: chain.head,
    records,
    broken,
    problems,
    anchor: anchor === undefined ? null : { hash: anchor, found: index.anchorSeq !== null, seq: index.anchorSeq },
    unfinished: [...index.unfinished].map(([record, seq]) => ({ record, seq })),
  };
}
