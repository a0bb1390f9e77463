// The renderer bridge contract: every method `window.airlock` has, its argument schema (zod,
// checked in main before anything runs) and its result type. Main, preload, the e2e harness and
// the renderer all import this file, so a method exists in all four places or in none.
//
// Rules every method follows (main enforces them; see app/services/bridge):
// - Arguments are validated with these schemas; anything else is refused with a BridgeError
//   (code 'bad-request') and an audit entry. Unknown method names are refused the same way.
// - The sender is checked first: the frame's origin must be the app's scheme and the frame must
//   belong to a window main created for the viewer (the prompt window has its own bridge).
// - Raw bytes — even as hex — and anything derived from them that the sanitized text does not
//   hold (a span's code point, byte, final byte or command number) leave main only through the
//   GRANT_METHODS, whose first argument is a grant id bound to the calling window. Everything else
//   returns sanitized text, offsets, counts, and span class and meaning (names from fixed tables).
// - No call holds main's event loop: queries and searches run in worker threads within a time
//   budget ('timeout'), and a text search or screen reconstruction can be cancelled ('cancelled').
import { z } from 'zod';
import type {
  ArtifactRef, AuditView, Bookmark, ChunkLogView, CopyKind, ExportKind, GrantInfo, HexDumpExport, IndexStatus, Minimap,
  PromptView, RawAccessOutcome, RawPage, RecordSummary, RemovalReport, RequestView, ScreenStatus, SearchHits, SecretInfo, SecretValue, SpanInfo, SpanValue, TextPage,
  TextPosition, VaultInfo,
} from './types';

export * from './limits';
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
const screenSize = z.object({ cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(1000) }).strict();

/** Argument schemas, one zod tuple per method. */
export const BRIDGE_ARGS = {
  getVaultInfo: z.tuple([]),
  listRecords: z.tuple([]),
  /** Main shows its own file dialog and imports the choice; the renderer never names a path. */
  openFile: z.tuple([]),
  startIndex: z.tuple([artifactRefSchema]),
  getIndexStatus: z.tuple([artifactRefSchema]),
  cancelIndex: z.tuple([artifactRefSchema]),
  getReport: z.tuple([artifactRefSchema]),
  getSpans: z.tuple([artifactRefSchema, offset, length.max(MAX_SPAN_RANGE)]),
  /** Next (`1`) or previous (`-1`) span from `from`, optionally of one class or meaning. */
  findSpan: z.tuple([artifactRefSchema, offset, z.union([z.literal(1), z.literal(-1)]), z.object({ cls: z.number().int().min(0).max(63).optional(), meaning: z.string().max(200).optional() }).strict()]),
  getMinimap: z.tuple([artifactRefSchema, z.number().int().min(1).max(MAX_MINIMAP_BUCKETS)]),
  getTextLines: z.tuple([artifactRefSchema, offset, z.number().int().min(1).max(MAX_TEXT_LINES)]),
  /** The suspected secrets whose raw extent overlaps `[offset, offset + length)`: rule names and places, never values. */
  getSecrets: z.tuple([artifactRefSchema, offset, length.max(MAX_SPAN_RANGE)]),
  textPositionOf: z.tuple([artifactRefSchema, offset]),
  /** One search per window: a new one (or cancelSearch) ends the window's running search ('cancelled'). */
  searchText: z.tuple([artifactRefSchema, z.string().min(1).max(MAX_NOTE_CHARS), z.object({ caseSensitive: z.boolean().optional() }).strict()]),
  cancelSearch: z.tuple([]),
  /** Starts (or joins) the screen engine on the artifact, on a terminal of this size (`airlock screen`); poll for progress. */
  getScreen: z.tuple([artifactRefSchema, screenSize]),
  cancelScreen: z.tuple([artifactRefSchema, screenSize]),
  getChunkLog: z.tuple([recordId]),
  requestRawAccess: z.tuple([artifactRefSchema, z.object({ range: range.optional(), reason: note.optional() }).strict()]),
  listGrants: z.tuple([]),
  revokeGrant: z.tuple([grantId]),
  readRaw: z.tuple([grantId, offset, z.number().int().min(1).max(MAX_RAW_READ)]),
  /** The values of the spans in `[offset, offset + length)` that lie wholly inside the granted range. */
  getSpanValues: z.tuple([grantId, offset, length.max(MAX_SPAN_RANGE)]),
  /** The values of the suspected secrets overlapping `[offset, offset + length)` that lie wholly inside the granted range. */
  getSecretValues: z.tuple([grantId, offset, length.max(MAX_SPAN_RANGE)]),
  /** Hex pattern with `??` wildcards (`1b 5d ?? 3b`) or literal text, over the raw bytes. */
  searchRaw: z.tuple([grantId, z.object({ mode: z.enum(['hex', 'text']), pattern: z.string().min(1).max(MAX_NOTE_CHARS) }).strict()]),
  listBookmarks: z.tuple([artifactRefSchema]),
  saveBookmark: z.tuple([artifactRefSchema, z.object({ offset, length, note }).strict()]),
  deleteBookmark: z.tuple([artifactRefSchema, bookmarkId]),
  /** An empty text is refused: nothing reaches the clipboard and no `text.copied` is audited. */
  copyText: z.tuple([z.enum(['hex', 'caret', 'c-array', 'text', 'offset']), z.string().min(1, 'nothing to copy').max(MAX_EXPORT_CHARS)]),
  exportText: z.tuple([z.enum(['hex-dump', 'report-json', 'report-md', 'compare-md', 'bookmarks-md']), z.string().max(120), z.string().max(MAX_EXPORT_CHARS)]),
  /**
   * Main writes the hex dump of `range` (absent: all the grant covers, the whole artifact for a
   * whole-artifact grant) to a file the human picks in main's save dialog, streamed (any size);
   * audited as `text.exported` with its scope and range, and counted as a read of the grant.
   */
  exportHexDump: z.tuple([grantId, z.object({ range: range.optional() }).strict()]),
  listAudit: z.tuple([z.number().int().min(1).max(10_000)]),
  /** The review queue: every raw-access request of the vault (agents' bounded extracts). */
  listRequests: z.tuple([]),
  /**
   * A reviewer's decision. `deny` is direct; `approve` only opens main's prompt window, and the
   * human approves there (reason and digest digits): no renderer call can approve by itself.
   */
  reviewRequest: z.tuple([requestId, z.enum(['approve', 'deny']), note]),
} as const;

/** Every method name of `window.airlock`. */
export type BridgeMethod = keyof typeof BRIDGE_ARGS;
export const BRIDGE_METHODS = Object.keys(BRIDGE_ARGS) as BridgeMethod[];
/** Methods that return raw bytes or facts about them and so need a grant bound to the caller. */
export const GRANT_METHODS: ReadonlySet<BridgeMethod> = new Set<BridgeMethod>(['readRaw', 'searchRaw', 'getSpanValues', 'getSecretValues', 'exportHexDump']);

/** The API the preload exposes as `window.airlock` (and the harness stands in for). */
export interface AirlockBridge {
  getVaultInfo(): Promise<VaultInfo>;
  listRecords(): Promise<RecordSummary[]>;
  openFile(): Promise<RecordSummary | null>;
  startIndex(ref: ArtifactRef): Promise<IndexStatus>;
  getIndexStatus(ref: ArtifactRef): Promise<IndexStatus>;
  cancelIndex(ref: ArtifactRef): Promise<IndexStatus>;
  getReport(ref: ArtifactRef): Promise<RemovalReport>;
  getSpans(ref: ArtifactRef, offset: number, length: number): Promise<SpanInfo[]>;
  findSpan(ref: ArtifactRef, from: number, direction: 1 | -1, filter: { cls?: number; meaning?: string }): Promise<SpanInfo | null>;
  getMinimap(ref: ArtifactRef, buckets: number): Promise<Minimap>;
  /** Sanitized text lines; a suspected secret's text comes as a `secret` piece (rule and place), never as text. */
  getTextLines(ref: ArtifactRef, firstLine: number, count: number): Promise<TextPage>;
  getSecrets(ref: ArtifactRef, offset: number, length: number): Promise<SecretInfo[]>;
  textPositionOf(ref: ArtifactRef, rawOffset: number): Promise<TextPosition | null>;
  searchText(ref: ArtifactRef, query: string, options: { caseSensitive?: boolean }): Promise<SearchHits>;
  /** Ends this window's running text search, if any (its call fails with 'cancelled'). */
  cancelSearch(): Promise<void>;
  /**
   * What a terminal of that size showed at the end, and the printed text it hid (no raw bytes:
   * offsets and inert text): starts the reconstruction in a worker, or reports where the running
   * one stands; `view` once it is done.
   */
  getScreen(ref: ArtifactRef, size: { cols: number; rows: number }): Promise<ScreenStatus>;
  cancelScreen(ref: ArtifactRef, size: { cols: number; rows: number }): Promise<ScreenStatus>;
  getChunkLog(recordId: string): Promise<ChunkLogView>;
  /** Opens main's prompt window; resolves once the human approved or denied (or it expired). */
  requestRawAccess(ref: ArtifactRef, options: { range?: [number, number]; reason?: string }): Promise<RawAccessOutcome>;
  listGrants(): Promise<GrantInfo[]>;
  revokeGrant(grantId: string): Promise<void>;
  readRaw(grantId: string, offset: number, length: number): Promise<RawPage>;
  getSpanValues(grantId: string, offset: number, length: number): Promise<SpanValue[]>;
  /** Counted as a read of the grant (its `raw.opened`): the values are raw content. */
  getSecretValues(grantId: string, offset: number, length: number): Promise<SecretValue[]>;
  searchRaw(grantId: string, query: { mode: 'hex' | 'text'; pattern: string }): Promise<SearchHits>;
  listBookmarks(ref: ArtifactRef): Promise<Bookmark[]>;
  saveBookmark(ref: ArtifactRef, bookmark: { offset: number; length: number; note: string }): Promise<Bookmark>;
  deleteBookmark(ref: ArtifactRef, id: string): Promise<void>;
  /** Main checks the text is inert (no ESC, C0 but LF/TAB, DEL, C1, invisible) before the clipboard. */
  copyText(kind: CopyKind, text: string): Promise<void>;
  /** Main shows a save dialog and writes the (inert-checked) text atomically, mode 0600. */
  exportText(kind: ExportKind, suggestedName: string, text: string): Promise<{ saved: boolean; name: string | null }>;
  /** Hex dump of a selection or of everything the grant covers, written by main (save dialog, 0600, atomic). */
  exportHexDump(grantId: string, options: { range?: [number, number] }): Promise<HexDumpExport>;
  listAudit(limit: number): Promise<AuditView[]>;
  /** Every queued request, pending first; strings escaped, extracts inert (hex notation, digest, sanitized text). */
  listRequests(): Promise<RequestView[]>;
  /** Deny at once, or open main's prompt to approve; resolves with the request as it then stands. */
  reviewRequest(id: string, decision: 'approve' | 'deny', note: string): Promise<RequestView>;
}

/** Argument schemas of the prompt window's own bridge (`window.airlockPrompt`). */
export const PROMPT_ARGS = {
  getPrompt: z.tuple([]),
  /** `confirm` must equal the first `confirmDigits` hex digits of the digest to approve. */
  answerPrompt: z.tuple([z.object({ decision: z.enum(['approve', 'deny']), reason: note, confirm: z.string().max(64) }).strict()]),
} as const;
export type PromptMethod = keyof typeof PROMPT_ARGS;
export const PROMPT_METHODS = Object.keys(PROMPT_ARGS) as PromptMethod[];

/** The prompt window's API: it can read and answer its one request, nothing else. */
export interface AirlockPromptBridge {
  getPrompt(): Promise<PromptView>;
  answerPrompt(answer: { decision: 'approve' | 'deny'; reason: string; confirm: string }): Promise<{ done: true }>;
}

/** Error codes a bridge call can fail with. */
export type BridgeErrorCode = 'bad-request' | 'forbidden' | 'no-grant' | 'expired' | 'not-found' | 'too-large' | 'unavailable' | 'timeout' | 'cancelled' | 'too-soon' | 'internal';

/**
 * What crosses the IPC boundary: a result or a one-line error. Preload (and the harness) turn
 * `ok: false` into a thrown `Error` whose message starts with `[code]`.
 */
export type BridgeWire<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: BridgeErrorCode; readonly message: string };
