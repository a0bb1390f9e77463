import { constants as fsc } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { contentDigest, verifyAuditFile, type AuditVerifyResult } from '../audit';
import { isErrno } from '../files/fs-atomic';
import { hashFile } from './hash-file';
import type { VaultLayout } from './layout';
import { eachRecord, prunedMarkerPath, type ScanResult } from './records';
import { isRecordId } from './record-id';

/** What the audit log says about the vault's files: the entries that created or last changed each. */
export interface AuditIndex {
  readonly chain: AuditVerifyResult;
  /** Per record id: the entry that created it (`capture.stored`, `artifact.imported`) and the digest it committed to (null: an entry from before records were bound). */
  readonly records: Map<string, { seq: number; sha256: string | null; count: number }>;
  /** Per record id: the `record.pruned` entry's digest of the marker. */
  readonly markers: Map<string, string>;
  /** Per request id: the digest its latest `request.*` entry committed to (null before requests were bound). */
  readonly requests: Map<string, { seq: number; sha256: string | null }>;
  /** `capture.started` entries with no `capture.stored` or `capture.failed` after them: record id → seq. */
  readonly unfinished: Map<string, number>;
  /** The seq of the entry whose hash is the anchor, when one was given and found. */
  readonly anchorSeq: number | null;
}

/** Largest request file read (an approved hex extract of 64 KiB is well below it). */
const MAX_REQUEST_BYTES = 4 << 20;

/**
 * Reads the audit log once, as a stream (verifyAuditFile), and indexes what it committed to.
 * Memory grows with the number of records and requests (an id and a digest each), never with
 * their size.
 */
export async function indexAudit(auditPath: string, anchor?: string): Promise<AuditIndex> {
  const records = new Map<string, { seq: number; sha256: string | null; count: number }>();
  const markers = new Map<string, string>();
  const requests = new Map<string, { seq: number; sha256: string | null }>();
  const unfinished = new Map<string, number>();
  let anchorSeq: number | null = null;
  const chain = await verifyAuditFile(auditPath, (e) => {
    if (e.hash === anchor) anchorSeq = e.seq;
    const id = typeof e.record === 'string' ? e.record : null;
    const sha = typeof e.record_sha256 === 'string' ? e.record_sha256 : null;
    switch (e.action) {
      case 'capture.started':
        if (id) unfinished.set(id, e.seq);
        break;
      case 'capture.failed':
        if (id) unfinished.delete(id);
        break;
      case 'capture.stored':
      case 'artifact.imported':
        if (!id) break;
        unfinished.delete(id);
        records.set(id, { seq: e.seq, sha256: sha, count: (records.get(id)?.count ?? 0) + 1 });
        break;
      case 'record.pruned':
        if (id && typeof e.marker_sha256 === 'string') markers.set(id, e.marker_sha256);
        break;
      default:
        if (e.action.startsWith('request.') && typeof e.request === 'string') {
          requests.set(e.request, { seq: e.seq, sha256: typeof e.request_sha256 === 'string' ? e.request_sha256 : null });
        }
    }
  });
  return { chain, records, markers, requests, unfinished, anchorSeq };
}

/** One file whose content the audit log does not vouch for. */
export interface BindingProblem {
  /** 'edited': its bytes differ from what its entry committed to; 'unbound': no entry commits to them. */
  readonly problem: 'edited' | 'unbound';
  readonly path: string;
  readonly detail: string;
  readonly recordId?: string;
}

/**
 * Holds every record, prune marker and request of the vault against the entries that made them:
 * a record's bytes must hash to what its creating entry committed to (one creating entry per
 * record), a marker to its `record.pruned` entry, a request file (without its `audit` pointer) to
 * its latest `request.*` entry. Any edit — sanitized text, exit code, sandbox claim, digests, an
 * extract — is 'edited'; a file no entry vouches for (planted, or written before binding) is
 * 'unbound'. Records are read as a stream, one at a time.
 */
export async function checkBindings(layout: VaultLayout, index: AuditIndex): Promise<BindingProblem[]> {
  // Past a broken line nothing the log says can be trusted; verify reports the break itself.
  if (!index.chain.ok) return [];
  const problems: BindingProblem[] = [];
  for await (const r of eachRecord(layout)) {
    const p = recordBindingProblem(layout, index, r);
    if (p) problems.push(p);
  }
  problems.push(...(await checkMarkersAndRequests(layout, index)));
  return problems;
}

/** Whether one record, as read (its bytes hashed), is what the entry that created it committed to. */
export function recordBindingProblem(layout: VaultLayout, index: AuditIndex, r: ScanResult): BindingProblem | null {
  if (!index.chain.ok) return null;
  const path = layout.recordPath(r.id);
  const made = index.records.get(r.id);
  if (!made) return { problem: 'unbound', path, recordId: r.id, detail: `record ${r.id} has no audit entry that created it (planted, or its entry was cut from the log)` };
  if (made.count > 1) return { problem: 'edited', path, recordId: r.id, detail: `record ${r.id} has ${made.count} creating audit entries (one was forged)` };
  if (made.sha256 === null) return { problem: 'unbound', path, recordId: r.id, detail: `record ${r.id} was stored before records were bound to the audit log: its content cannot be checked` };
  if (!r.ok) return { problem: 'edited', path, recordId: r.id, detail: `record ${r.id} no longer reads (${r.error})` };
  if (r.sha256 !== made.sha256) return { problem: 'edited', path, recordId: r.id, detail: `record ${r.id} hashes to ${r.sha256}, not to the ${made.sha256} its audit entry ${made.seq} committed to` };
  return null;
}

/** The prune markers and review requests held against their entries (the records' part is recordBindingProblem). */
export async function checkMarkersAndRequests(layout: VaultLayout, index: AuditIndex): Promise<BindingProblem[]> {
  if (!index.chain.ok) return [];
  const problems: BindingProblem[] = [];
  for (const name of await namesIn(layout.recordsDir)) {
    if (!name.endsWith('.pruned') || !isRecordId(name.slice(0, -'.pruned'.length))) continue;
    const id = name.slice(0, -'.pruned'.length);
    const path = prunedMarkerPath(layout, id);
    const want = index.markers.get(id);
    const got = await hashFile(path).then((h) => h.sha256, () => null);
    if (want === undefined) problems.push({ problem: 'unbound', path, recordId: id, detail: `the prune marker of record ${id} has no record.pruned entry` });
    else if (got !== want) problems.push({ problem: 'edited', path, recordId: id, detail: `the prune marker of record ${id} differs from what its record.pruned entry committed to` });
  }
  const requestsDir = join(layout.root, 'requests');
  for (const name of await namesIn(requestsDir)) {
    const id = name.endsWith('.json') ? name.slice(0, -5) : '';
    if (!/^req-\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(id)) continue;
    const path = join(requestsDir, name);
    const want = index.requests.get(id);
    const got = await requestDigest(path);
    if (!want || want.sha256 === null) problems.push({ problem: 'unbound', path, detail: `request ${id} has no audit entry that commits to its content` });
    else if (got !== want.sha256) problems.push({ problem: 'edited', path, detail: `request ${id} differs from what its audit entry ${want.seq} committed to` });
  }
  return problems;
}

/** contentDigest of a request file, or null when it does not read as a JSON object. */
async function requestDigest(path: string): Promise<string | null> {
  try {
    const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    try {
      if ((await fh.stat()).size > MAX_REQUEST_BYTES) return null;
      const v = JSON.parse(await fh.readFile('utf8')) as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? contentDigest(v as Record<string, unknown>) : null;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
}
