import { z } from 'zod';
import { isInert } from '../../../shared/sanitize';
import type { ExtractView } from '../../../shared/bridge/types';
import { REQUEST_ID } from './id';
import { MAX_REASON, MAX_SEARCH_TERM } from './limits';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const offset = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const range = z.tuple([offset, offset]).refine(([a, b]) => a < b, 'range start must be below its end');
const iso = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, 'not an ISO time');
const label = z.string().regex(/^[\x20-\x7e]{1,64}$/);
const who = z.object({ user: label, host: label, via: z.enum(['cli', 'mcp', 'desktop', 'demo']) }).strict();
const auditRef = z.object({ seq: z.number().int().min(1), hash: sha256 }).strict();

const extract = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('hex-range'), range, rows: z.array(z.string().refine(isInert, 'hex rows are inert notation')).max(70_000) }).strict(),
  z.object({ kind: z.literal('digest'), range: range.nullable(), bytes: offset, sha256, expect: sha256.nullable(), match: z.boolean().nullable() }).strict(),
  z.object({
    kind: z.literal('text'),
    range,
    text: z.string(),
    textTruncated: z.boolean(),
    removed: z.object({ spans: offset, bytes: offset, classes: z.record(z.string(), offset) }).strict(),
    search: z.object({ term: z.string(), total: offset, hits: z.array(z.object({ offset, line: offset, context: z.string() }).strict()).max(1000) }).strict().nullable(),
  }).strict(),
]);

/**
 * One request file (`requests/<id>.json`) as written: who asked for what and why, and once decided,
 * who decided, when, and what the action returned (the extract, its digest and size) with the
 * audit entries that record it. Every file is validated with this schema on read.
 */
export const storedRequestSchema = z.object({
  version: z.literal(1),
  id: z.string().regex(REQUEST_ID),
  created_at: iso,
  expires_at: iso,
  requester: who,
  artifact: z.string().regex(/^restricted:sha256:[0-9a-f]{64}$/),
  sha256,
  size: offset,
  kind: z.enum(['hex-range', 'digest', 'text']),
  range: range.nullable(),
  expect: sha256.nullable(),
  search: z.string().min(1).max(MAX_SEARCH_TERM).nullable(),
  reason: z.string().min(1).max(MAX_REASON),
  state: z.enum(['pending', 'approved', 'denied', 'expired']),
  decision: z.object({ at: iso, by: who, note: z.string().max(MAX_REASON).nullable() }).strict().nullable(),
  extract: extract.nullable(),
  extract_sha256: sha256.nullable(),
  extract_bytes: offset.nullable(),
  /** Set when prune removed the extract with the raw bytes it came from (the request stays approved). */
  extract_pruned_at: iso.nullable().optional(),
  audit: z.object({ created: auditRef, decided: auditRef.nullable() }).strict(),
}).strict();

/** A request as stored. */
export type StoredRequest = Omit<z.infer<typeof storedRequestSchema>, 'extract'> & { extract: ExtractView | null };
/** Who acted: the OS identity (as the audit log has it) and through what. */
export type RequestActor = z.infer<typeof who>;
