import { isErrno } from '../files/fs-atomic';
import { entryHash, entryShapeProblem, GENESIS_PREV } from './entry';
import { readLines } from './lines';

/** Result of checking the whole chain: entry count and head hash, or the first bad line. */
export type AuditVerifyResult =
  | { readonly ok: true; readonly entries: number; readonly head: string }
  | {
      readonly ok: false;
      readonly line: number;
      readonly reason: string;
      /** Entries before the bad line, all intact, and the hash of the last of them. */
      readonly entries: number;
      readonly head: string;
      /** Byte length of those intact entries: where the damage starts. */
      readonly validBytes: number;
      /** Whether the bad line is the file's last (a torn or damaged tail, which `repair` handles). */
      readonly atTail: boolean;
    };

/** A verified entry, as {@link verifyAuditFile} hands it to its `onEntry` callback. */
export type VerifiedEntry = Readonly<Record<string, unknown>> & { readonly seq: number; readonly hash: string; readonly action: string };

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
export async function verifyAuditFile(path: string, onEntry?: (entry: VerifiedEntry) => void): Promise<AuditVerifyResult> {
  let prevHash = GENESIS_PREV;
  let count = 0;
  let validBytes = 0;
  let failure: { line: number; reason: string } | null = null;
  let lines = 0;
  try {
    for await (const { line, text, complete, start } of readLines(path)) {
      lines = line;
      // After the first bad line only the count of lines goes on: repair needs to know whether it was the last.
      if (failure) continue;
      const bad = (reason: string): void => {
        failure = { line, reason };
      };
      if (!complete) {
        bad('truncated last line (no trailing newline)');
        continue;
      }
      if (text.length === 0) {
        bad('empty line');
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        bad('not valid JSON');
        continue;
      }
      const problem = entryProblem(parsed, text, line, prevHash);
      if (problem) {
        bad(problem);
        continue;
      }
      const entry = parsed as VerifiedEntry;
      onEntry?.(entry);
      prevHash = entry.hash;
      count = line;
      validBytes = start + Buffer.byteLength(text, 'utf8') + 1;
    }
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { ok: true, entries: 0, head: GENESIS_PREV };
    throw err;
  }
  const failed = failure as { line: number; reason: string } | null;
  if (failed) return { ok: false, ...failed, entries: count, head: prevHash, validBytes, atTail: failed.line === lines };
  return { ok: true, entries: count, head: prevHash };
}

/** Why one parsed line is not the valid entry number `line` after `prevHash`; null when it is. */
function entryProblem(parsed: unknown, text: string, line: number, prevHash: string): string | null {
  // The hash covers the parsed entry, so the line itself must be exactly what the writer
  // makes of it: otherwise a duplicate key (which readers resolve differently), extra spaces
  // or re-escaped characters could change what a reader sees without changing the hash.
  if (JSON.stringify(parsed) !== text) return 'line is not in the form Airlock writes (duplicate key, spacing or escaping changed)';
  const shape = entryShapeProblem(parsed);
  if (shape) return `malformed entry: ${shape}`;
  const entry = parsed as Record<string, unknown> & { seq: number; prev: string; hash: string };
  if (entry.seq !== line) return `sequence number ${entry.seq} where ${line} was expected (entry deleted, inserted or reordered)`;
  if (entry.prev !== prevHash) {
    return `prev does not match the hash of ${line === 1 ? 'the log start' : `line ${line - 1}`} (entry deleted, inserted or reordered)`;
  }
  if (entryHash(entry) !== entry.hash) return 'hash does not match the entry content (entry edited)';
  return null;
}
