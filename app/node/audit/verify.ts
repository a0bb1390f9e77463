import { isErrno } from '../fs-atomic';
import { entryHash, entryShapeProblem, GENESIS_PREV } from './entry';
import { readLines } from './lines';

/** Result of checking the whole chain: entry count and head hash, or the first bad line. */
export type AuditVerifyResult =
  | { readonly ok: true; readonly entries: number; readonly head: string }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/**
 * Checks every line of the audit log in order and names the first bad one (1-based):
 * torn/truncated last line, empty or non-JSON line, malformed entry, sequence gap or repeat
 * (deleted, inserted, reordered entries), `prev` not linking to the previous line's hash, and
 * a hash that does not match the content (edited entry), and a line that is not byte for byte
 * the writer's serialization of what it parses to. A missing file is an empty, valid log.
 *
 * Limits: the chain has no secret, so someone who rewrites the file from a point onward and
 * recomputes every hash, or cuts whole lines off the end, is not detected here. Record the
 * reported `head` elsewhere (ticket, second host) to anchor it.
 */
export async function verifyAuditFile(path: string): Promise<AuditVerifyResult> {
  let prevHash = GENESIS_PREV;
  let count = 0;
  try {
    for await (const { line, text, complete } of readLines(path)) {
      const bad = (reason: string): AuditVerifyResult => ({ ok: false, line, reason });
      if (!complete) return bad('truncated last line (no trailing newline)');
      if (text.length === 0) return bad('empty line');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return bad('not valid JSON');
      }
      // The hash covers the parsed entry, so the line itself must be exactly what the writer
      // makes of it: otherwise a duplicate key (which readers resolve differently), extra spaces
      // or re-escaped characters could change what a reader sees without changing the hash.
      if (JSON.stringify(parsed) !== text) return bad('line is not in the form Airlock writes (duplicate key, spacing or escaping changed)');
      const shape = entryShapeProblem(parsed);
      if (shape) return bad(`malformed entry: ${shape}`);
      const entry = parsed as Record<string, unknown> & { seq: number; prev: string; hash: string };
      if (entry.seq !== line) {
        return bad(`sequence number ${entry.seq} where ${line} was expected (entry deleted, inserted or reordered)`);
      }
      if (entry.prev !== prevHash) {
        return bad(`prev does not match the hash of ${line === 1 ? 'the log start' : `line ${line - 1}`} (entry deleted, inserted or reordered)`);
      }
      if (entryHash(entry) !== entry.hash) return bad('hash does not match the entry content (entry edited)');
      prevHash = entry.hash;
      count = line;
    }
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { ok: true, entries: 0, head: GENESIS_PREV };
    throw err;
  }
  return { ok: true, entries: count, head: prevHash };
}
