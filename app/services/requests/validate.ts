import { lstat } from 'node:fs/promises';
import type { ExtractKind } from '../../../shared/bridge/types';
import { parseRef, type Vault } from '../../vault';
import { RequestError } from './errors';
import { MAX_HEX_RANGE, MAX_REASON, MAX_SEARCH_TERM, MAX_TEXT_RANGE, MIN_DIGEST_RANGE } from './limits';

/** What a requester asks for (CLI flags or MCP arguments, not yet checked against the vault). */
export interface NewRequest {
  readonly artifact: string;
  readonly kind: string;
  /** `[start, end)`, end exclusive. */
  readonly range: readonly [number, number] | null;
  readonly expect: string | null;
  readonly search: string | null;
  readonly reason: string;
}

/** A request that passed every check, with what the vault says about its artifact. */
export interface CheckedRequest {
  readonly artifact: string;
  readonly sha256: string;
  readonly size: number;
  readonly kind: ExtractKind;
  readonly range: [number, number] | null;
  readonly expect: string | null;
  readonly search: string | null;
  readonly reason: string;
}

const KINDS: readonly ExtractKind[] = ['hex-range', 'digest', 'text'];

/**
 * Checks a new request before anything is queued: the kind and the options it takes (`expect`
 * only for digest, `search` only for text), the reason, the hex digest, the range against the
 * artifact's size and the kind's bound, and that the artifact is in this vault. The first problem
 * is a RequestError with one line saying what to change.
 */
export async function checkNewRequest(vault: Vault, r: NewRequest): Promise<CheckedRequest> {
  if (!(KINDS as readonly string[]).includes(r.kind)) throw new RequestError('bad-request', `kind must be hex-range, digest or text, not '${printable(r.kind)}'`);
  const kind = r.kind as ExtractKind;
  const reason = r.reason.trim();
  if (reason.length === 0) throw new RequestError('bad-request', 'a reason is required: say why the raw bytes are needed (the reviewer reads it)');
  if (reason.length > MAX_REASON) throw new RequestError('bad-request', `the reason is longer than ${MAX_REASON} characters`);
  if (r.expect !== null && kind !== 'digest') throw new RequestError('bad-request', `--expect goes with --kind digest only (not ${kind})`);
  if (r.search !== null && kind !== 'text') throw new RequestError('bad-request', `--search goes with --kind text only (not ${kind})`);
  const expect = r.expect === null ? null : r.expect.toLowerCase();
  if (expect !== null && !/^[0-9a-f]{64}$/.test(expect)) throw new RequestError('bad-request', 'the expected digest must be 64 hex digits (a sha256)');
  if (r.search !== null && (r.search.length === 0 || r.search.length > MAX_SEARCH_TERM)) throw new RequestError('bad-request', `the search term must be 1 to ${MAX_SEARCH_TERM} characters`);
  let sha256: string;
  try {
    sha256 = parseRef(r.artifact).sha256;
  } catch {
    throw new RequestError('bad-request', `not a raw artifact reference: '${printable(r.artifact)}' (expected restricted:sha256:<64 hex digits>)`);
  }
  const st = await lstat(vault.rawPath(sha256)).catch(() => null);
  if (!st?.isFile()) throw new RequestError('not-found', `no raw artifact ${r.artifact} in this vault (pruned, or never stored here)`);
  const size = st.size;
  const range = r.range ? ([r.range[0], r.range[1]] as [number, number]) : null;
  if (range) {
    if (!Number.isSafeInteger(range[0]) || !Number.isSafeInteger(range[1]) || range[0] < 0 || range[0] >= range[1]) {
      throw new RequestError('bad-request', `bad range ${range[0]}:${range[1]}: the start must be below the end (A:B, end exclusive)`);
    }
    if (range[1] > size) throw new RequestError('bad-request', `range ${range[0]}:${range[1]} is past the end of the artifact (${size} bytes)`);
  }
  if (kind === 'hex-range') {
    if (!range) throw new RequestError('bad-request', '--kind hex-range needs --range A:B');
    if (range[1] - range[0] > MAX_HEX_RANGE) throw new RequestError('too-large', `a hex-range extract is at most ${MAX_HEX_RANGE} bytes (asked for ${range[1] - range[0]})`);
  }
  if (kind === 'digest') {
    const span = range ? range[1] - range[0] : size;
    if (span < MIN_DIGEST_RANGE) {
      throw new RequestError('bad-request', `a digest covers at least ${MIN_DIGEST_RANGE} bytes (${range ? 'the range has' : 'the artifact has'} ${span}): the sha256 of a few bytes gives them away to anyone who tries every value`);
    }
  }
  if (kind === 'text') {
    const span = range ? range[1] - range[0] : size;
    if (span > MAX_TEXT_RANGE) throw new RequestError('too-large', `a text extract covers at most ${MAX_TEXT_RANGE} bytes (${range ? 'the range has' : 'the artifact has'} ${span}; give a smaller --range)`);
    if (span === 0) throw new RequestError('bad-request', 'the artifact is empty: there is no text to extract');
  }
  return { artifact: `restricted:sha256:${sha256}`, sha256, size, kind, range, expect, search: r.search, reason };
}

function printable(s: string): string {
  return s.slice(0, 80).replace(/[^\x20-\x7e]/g, '?');
}
