// The renderer bridge contract: the argument schema of every method in the table (methods.ts),
// checked in main before anything runs, and the API types derived from both. Main, preload, the
// e2e harness and the renderer all import it, so a method exists in all four places or in none.
//
// Rules every method follows (main enforces them; see app/services/bridge):
// - The sender is checked first: the frame's origin must be the app's scheme and the frame must
//   belong to a window main created for the method's window kind (viewer or prompt).
// - Arguments are validated with these schemas; anything else is refused with a BridgeError
//   (code 'bad-request') and an audit entry. Unknown method names are refused the same way.
// - A grant method's first argument is a grant id bound to the calling window, checked before the
//   method runs (methods.ts GRANT_METHODS): only those return raw bytes or raw-derived values.
// - No call holds main's event loop: queries and searches run in worker threads within a time
//   budget ('timeout'), and a text search or screen reconstruction can be cancelled ('cancelled').
import { z } from 'zod';
import type { BridgeMethod, BridgeResult, PromptMethod, ViewerMethod } from './methods';

export * from './limits';
export * from './methods';
import { MAX_EXPORT_CHARS, MAX_MINIMAP_BUCKETS, MAX_NOTE_CHARS, MAX_RAW_READ, MAX_SPAN_RANGE, MAX_TEXT_LINES } from './limits';

const offset = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const length = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** `restricted:sha256:<64 lowercase hex>`: nothing else names an artifact (no paths, no `..`). */
export const artifactRefSchema = z.string().regex(/^restricted:sha256:[0-9a-f]{64}$/, 'not a restricted:sha256: reference');
const recordId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/).refine((s) => !s.includes('..'), 'not a record id');
const grantId = z.string().regex(/^g-[0-9a-f]{32}$/, 'not a grant id');
const bookmarkId = z.string().regex(/^b-[0-9a-f]{16}$/, 'not a bookmark id');
/** A review-queue request id (`req-20261201T203000Z-1a2b3c4d`): also the file-name whitelist. */
const requestId = z.string().regex(/^req-\d{8}T\d{6}Z-[0-9a-f]{8}$/, 'not a request id');
const note = z.string().max(MAX_NOTE_CHARS);
const range = z.tuple([offset, offset]).refine(([a, b]) => a < b, 'range start must be below its end');
/** A stream a running capture names (as running records validate them). */
const streamName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'not a stream name');
const screenSize = z.object({ cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(1000) }).strict();

/**
 * Argument schemas, one zod tuple per method of the table (what each argument means is there): a
 * method without its schema, or a schema without its method, fails to compile.
 */
export const BRIDGE_ARGS = {
  getVaultInfo: z.tuple([]),
  listRecords: z.tuple([]),
  openFile: z.tuple([]),
  listRunning: z.tuple([]),
  followRunning: z.tuple([recordId, streamName, offset, z.number().int().min(1).max(MAX_MINIMAP_BUCKETS)]),
  getRunningScreen: z.tuple([recordId, streamName, screenSize, offset.nullable()]),
  cancelRunningScreen: z.tuple([recordId, streamName, screenSize, offset]),
  startIndex: z.tuple([artifactRefSchema]),
  getIndexStatus: z.tuple([artifactRefSchema]),
  cancelIndex: z.tuple([artifactRefSchema]),
  getReport: z.tuple([artifactRefSchema]),
  getSpans: z.tuple([artifactRefSchema, offset, length.max(MAX_SPAN_RANGE)]),
  findSpan: z.tuple([artifactRefSchema, offset, z.union([z.literal(1), z.literal(-1)]), z.object({ cls: z.number().int().min(0).max(63).optional(), meaning: z.string().max(200).optional() }).strict()]),
  getMinimap: z.tuple([artifactRefSchema, z.number().int().min(1).max(MAX_MINIMAP_BUCKETS)]),
  getTextLines: z.tuple([artifactRefSchema, offset, z.number().int().min(1).max(MAX_TEXT_LINES)]),
  getSecrets: z.tuple([artifactRefSchema, offset, length.max(MAX_SPAN_RANGE)]),
  textPositionOf: z.tuple([artifactRefSchema, offset]),
  searchText: z.tuple([artifactRefSchema, z.string().min(1).max(MAX_NOTE_CHARS), z.object({ caseSensitive: z.boolean().optional() }).strict()]),
  cancelSearch: z.tuple([]),
  getScreen: z.tuple([artifactRefSchema, screenSize]),
  cancelScreen: z.tuple([artifactRefSchema, screenSize]),
  getChunkLog: z.tuple([recordId]),
  requestRawAccess: z.tuple([artifactRefSchema, z.object({ range: range.optional(), reason: note.optional() }).strict()]),
  requestRunningRawAccess: z.tuple([recordId, streamName, z.object({ reason: note.optional() }).strict()]),
  listGrants: z.tuple([]),
  revokeGrant: z.tuple([grantId]),
  readRaw: z.tuple([grantId, offset, z.number().int().min(1).max(MAX_RAW_READ)]),
  readRunningRaw: z.tuple([grantId, offset, z.number().int().min(1).max(MAX_RAW_READ)]),
  getSpanValues: z.tuple([grantId, offset, length.max(MAX_SPAN_RANGE)]),
  getSecretValues: z.tuple([grantId, offset, length.max(MAX_SPAN_RANGE)]),
  getPayloads: z.tuple([grantId, offset, length.max(MAX_SPAN_RANGE)]),
  searchRaw: z.tuple([grantId, z.object({ mode: z.enum(['hex', 'text']), pattern: z.string().min(1).max(MAX_NOTE_CHARS) }).strict()]),
  listBookmarks: z.tuple([artifactRefSchema]),
  saveBookmark: z.tuple([artifactRefSchema, z.object({ offset, length, note }).strict()]),
  deleteBookmark: z.tuple([artifactRefSchema, bookmarkId]),
  copyText: z.tuple([z.enum(['hex', 'caret', 'c-array', 'text', 'offset']), z.string().min(1, 'nothing to copy').max(MAX_EXPORT_CHARS)]),
  exportText: z.tuple([z.enum(['hex-dump', 'report-json', 'report-md', 'compare-md', 'bookmarks-md']), z.string().max(120), z.string().max(MAX_EXPORT_CHARS)]),
  exportHexDump: z.tuple([grantId, z.object({ range: range.optional() }).strict()]),
  listAudit: z.tuple([z.number().int().min(1).max(10_000)]),
  listRequests: z.tuple([]),
  reviewRequest: z.tuple([requestId, z.enum(['approve', 'deny']), note]),
  getPrompt: z.tuple([]),
  answerPrompt: z.tuple([z.object({ decision: z.enum(['approve', 'deny']), reason: note, confirm: z.string().max(64) }).strict()]),
} satisfies { readonly [M in BridgeMethod]: z.ZodType<unknown[]> };

/** A method's arguments as its handler receives them (validated). */
export type BridgeArgs<M extends BridgeMethod> = z.output<(typeof BRIDGE_ARGS)[M]>;
type Api<Methods extends BridgeMethod> = { readonly [M in Methods]: (...args: z.input<(typeof BRIDGE_ARGS)[M]>) => Promise<BridgeResult<M>> };
/** The API the preload exposes as `window.airlock` (and the harness stands in for). */
export type AirlockBridge = Api<ViewerMethod>;
/** The prompt window's API (`window.airlockPrompt`): it can read and answer its one request, nothing else. */
export type AirlockPromptBridge = Api<PromptMethod>;

/** Error codes a bridge call can fail with. */
export type BridgeErrorCode = 'bad-request' | 'forbidden' | 'no-grant' | 'expired' | 'not-found' | 'too-large' | 'unavailable' | 'timeout' | 'cancelled' | 'too-soon' | 'internal';

/**
 * What crosses the IPC boundary: a result or a one-line error. Preload (and the harness) turn
 * `ok: false` into a thrown `Error` whose message starts with `[code]`.
 */
export type BridgeWire<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: BridgeErrorCode; readonly message: string };
