// The bridge's one table of methods: for each, which window may call it, whether it needs a grant,
// and what it answers. Everything that names the methods derives from it: the `AirlockBridge` and
// `AirlockPromptBridge` types and the argument schemas (contract.ts, which must cover exactly these
// methods), the preloads' allowlists (VIEWER_METHODS, PROMPT_METHODS), GRANT_METHODS, the e2e
// harness's API objects and the type of every handler in main's dispatcher. No zod here: the
// sandboxed preloads bundle this file, and the schema library would make them 500 times larger.
import type {
  AuditView, Bookmark, ChunkLogView, FollowUpdate, GrantInfo, HexDumpExport, IndexStatus, Minimap, PromptView, RawAccessOutcome, RawPage, RecordSummary,
  RemovalReport, RequestView, RunningRawPage, RunningSummary, ScreenStatus, SearchHits, SecretInfo, SecretValue, PayloadPage, SpanInfo, SpanValue, TextPage, TextPosition, VaultInfo,
} from './types';

/** Which window may call a method: a viewer (`window.airlock`) or main's prompt window (`window.airlockPrompt`). */
export type WindowKind = 'viewer' | 'prompt';

/** One row of the table. `result` is never set: it carries the method's result type for the compiler. */
export interface MethodSpec<W extends WindowKind = WindowKind, G extends boolean = boolean, R = unknown> {
  readonly window: W;
  /** The method returns raw bytes or facts about them: its first argument is a grant id, checked to be bound to the calling window. */
  readonly grant: G;
  /**
   * What the grant must cover: a sealed artifact (every grant method but one), or a running
   * capture's stream (readRunningRaw). A grant of the other kind is refused before the method runs.
   */
  readonly covers?: 'artifact' | 'running';
  readonly result?: R;
}

const viewer = <R>(): MethodSpec<'viewer', false, R> => ({ window: 'viewer', grant: false });
const granted = <R>(covers: 'artifact' | 'running' = 'artifact'): MethodSpec<'viewer', true, R> => ({ window: 'viewer', grant: true, covers });
const prompt = <R>(): MethodSpec<'prompt', false, R> => ({ window: 'prompt', grant: false });

/**
 * Every bridge method. Arguments are listed as `(name, …)`; their schemas are in contract.ts.
 * Everything but the grant methods returns sanitized text, offsets, counts, and span class and
 * meaning (names from fixed tables); raw bytes, even as hex, and what the sanitized text does not
 * hold (a span's code point, byte, final byte or command number) leave main only under a grant.
 */
export const BRIDGE_METHODS = {
  /** `()`: the vault the app is looking at, and this window's id. */
  getVaultInfo: viewer<VaultInfo>(),
  /** `()`: every record, sanitized metadata only. */
  listRecords: viewer<RecordSummary[]>(),
  /** `()`: main shows its own file dialog and imports the choice (the renderer never names a path); null when cancelled. */
  openFile: viewer<RecordSummary | null>(),
  /** `()`: the captures still running (or whose Airlock process is gone), newest first; sanitized metadata only. */
  listRunning: viewer<RunningSummary[]>(),
  /**
   * `(recordId, stream, from, buckets)`: follows a running capture: its sanitized text from text
   * byte `from`, its removal counts and minimap (`buckets` stretches) over the raw bytes so far, and
   * its state; once it is sealed, the sealed record's artifact to open. 'not-found' for an id that
   * is not a running capture (nor one sealed while followed).
   */
  followRunning: viewer<FollowUpdate>(),
  /**
   * `(recordId, stream, { cols, rows }, upTo)`: the screen engine on what a running capture's stream
   * has received: `upTo` null starts a run on the raw bytes so far, a number (the `totalBytes` a run
   * answered) asks how that run stands. Same answers as getScreen (inert text and offsets).
   */
  getRunningScreen: viewer<ScreenStatus>(),
  /** `(recordId, stream, { cols, rows }, upTo)`: withdraws from that run (it stops when no window wants it). */
  cancelRunningScreen: viewer<ScreenStatus>(),
  /** `(ref)`: starts (or joins) the build of the artifact's span index in a worker. */
  startIndex: viewer<IndexStatus>(),
  /** `(ref)` */
  getIndexStatus: viewer<IndexStatus>(),
  /** `(ref)` */
  cancelIndex: viewer<IndexStatus>(),
  /** `(ref)`: the removal report (counts by class and meaning, never a payload). */
  getReport: viewer<RemovalReport>(),
  /**
   * `(ref, offset, length)`: every span that overlaps `[offset, offset + length)`, including one that
   * starts before `offset` (a long OSC crossing the range's start); at most MAX_SPANS_PER_CALL.
   */
  getSpans: viewer<SpanInfo[]>(),
  /**
   * `(ref, from, direction, { cls?, meaning? })`: with `1` the first span that starts at or after
   * `from`, with `-1` the last that starts before it, optionally of one class or meaning; null: none.
   */
  findSpan: viewer<SpanInfo | null>(),
  /** `(ref, buckets)`: span starts per class in `buckets` equal stretches of the artifact. */
  getMinimap: viewer<Minimap>(),
  /** `(ref, firstLine, count)`: display lines of sanitized text, with chips for removed spans. */
  getTextLines: viewer<TextPage>(),
  /**
   * `(ref, offset, length)`: the suspected secrets whose raw extent overlaps `[offset, offset + length)`
   * (the capture's redaction stage over the sanitized text): rule names and places, never values.
   */
  getSecrets: viewer<SecretInfo[]>(),
  /** `(ref, rawOffset)`: where a raw byte lands in the sanitized text; null past the end. */
  textPositionOf: viewer<TextPosition | null>(),
  /** `(ref, query, { caseSensitive? })`: over the sanitized text. One search per window: a new one (or cancelSearch) ends the running one ('cancelled'). */
  searchText: viewer<SearchHits>(),
  /** `()`: ends this window's running text search, if any (its call fails with 'cancelled'). */
  cancelSearch: viewer<void>(),
  /**
   * `(ref, { cols, rows })`: what a terminal of that size showed at the end, and the printed text it
   * hid (offsets and inert text, no raw bytes): starts the screen engine of `airlock screen` on the
   * artifact in a worker, or reports where the running one stands; `view` once it is done.
   */
  getScreen: viewer<ScreenStatus>(),
  /** `(ref, { cols, rows })` */
  cancelScreen: viewer<ScreenStatus>(),
  /** `(recordId)`: the collector's chunk log of a capture (sequence numbers and per-stream offsets). */
  getChunkLog: viewer<ChunkLogView>(),
  /** `(ref, { range?, reason? })`: opens main's prompt window; resolves once the human approved or denied (or it expired). */
  requestRawAccess: viewer<RawAccessOutcome>(),
  /**
   * `(recordId, stream, { reason? })`: opens main's prompt window for raw access to one stream of a
   * running capture (the human types the last digits of its record id: there is no digest yet);
   * resolves once approved or denied. The grant covers the stream's bytes as they arrive
   * (readRunningRaw) and goes on over its sealed artifact once the capture is sealed.
   */
  requestRunningRawAccess: viewer<RawAccessOutcome>(),
  /** `()`: this window's live grants. */
  listGrants: viewer<GrantInfo[]>(),
  /** `(grantId)` */
  revokeGrant: viewer<void>(),
  /** `(grantId, offset, length)`: raw bytes inside the granted range, at most MAX_RAW_READ a call. */
  readRaw: granted<RawPage>(),
  /**
   * `(grantId, offset, length)`: under a grant on a running capture's stream, its raw bytes from
   * `offset` that are stored and named by its chunk log (below `size`, which only grows), at most
   * MAX_RAW_READ a call; read from main's own record of the capture's temp file, never a name the
   * caller gives. Once the capture is sealed, from its sealed artifact (`sealed` names it). The
   * grant ends when the capture is interrupted or fails.
   */
  readRunningRaw: granted<RunningRawPage>('running'),
  /** `(grantId, offset, length)`: the values of the spans in `[offset, offset + length)` that lie wholly inside the granted range. */
  getSpanValues: granted<SpanValue[]>(),
  /**
   * `(grantId, offset, length)`: the values of the suspected secrets overlapping `[offset, offset + length)`
   * that lie wholly inside the granted range; counted as a read of the grant (its `raw.opened`).
   */
  getSecretValues: granted<SecretValue[]>(),
  /**
   * `(grantId, offset, length)`: the decoded payloads (OSC 52 clipboard, OSC 8 targets, titles, tag
   * text) of the spans overlapping `[offset, offset + length)` that lie wholly inside the granted
   * range, in caret notation; counted as a read of the grant for each payload's bytes.
   */
  getPayloads: granted<PayloadPage>(),
  /** `(grantId, { mode, pattern })`: a hex pattern with `??` wildcards (`1b 5d ?? 3b`) or literal text, over the granted raw bytes. */
  searchRaw: granted<SearchHits>(),
  /**
   * `(grantId, { range? })`: main writes the hex dump of `range` (absent: all the grant covers, the
   * whole artifact for a whole-artifact grant) to a file the human picks in main's save dialog,
   * streamed (any size), atomic, mode 0600; audited as `text.exported` with its scope and range,
   * and counted as a read of the grant.
   */
  exportHexDump: granted<HexDumpExport>(),
  /** `(ref)` */
  listBookmarks: viewer<Bookmark[]>(),
  /** `(ref, { offset, length, note })` */
  saveBookmark: viewer<Bookmark>(),
  /** `(ref, bookmarkId)` */
  deleteBookmark: viewer<void>(),
  /**
   * `(kind, text)`: main checks the text is inert (no ESC, C0 but LF/TAB, DEL, C1, invisible) before
   * the clipboard. An empty text is refused: nothing reaches the clipboard and no `text.copied` is audited.
   */
  copyText: viewer<void>(),
  /** `(kind, suggestedName, text)`: main shows a save dialog and writes the (inert-checked) text atomically, mode 0600. */
  exportText: viewer<{ saved: boolean; name: string | null }>(),
  /** `(limit)`: the last `limit` audit entries, newest first, metadata only. */
  listAudit: viewer<AuditView[]>(),
  /** `()`: the review queue: every raw-access request of the vault, pending first; strings escaped, extracts inert (hex notation, digest, sanitized text). */
  listRequests: viewer<RequestView[]>(),
  /**
   * `(requestId, 'approve' | 'deny', note)`: `deny` is direct; `approve` only opens main's prompt
   * window, and the human approves there (reason and digest digits): no renderer call can approve
   * by itself. Resolves with the request as it then stands.
   */
  reviewRequest: viewer<RequestView>(),
  /** `()`: the prompt window's one request. */
  getPrompt: prompt<PromptView>(),
  /** `({ decision, reason, confirm })`: `confirm` must equal the first `confirmDigits` hex digits of the digest to approve. */
  answerPrompt: prompt<{ done: true }>(),
} as const;

/** Every method name, of both windows. */
export type BridgeMethod = keyof typeof BRIDGE_METHODS;
/** What a method answers. */
export type BridgeResult<M extends BridgeMethod> = (typeof BRIDGE_METHODS)[M] extends MethodSpec<WindowKind, boolean, infer R> ? R : never;
type MethodsWhere<K extends 'window' | 'grant', V> = { [M in BridgeMethod]: (typeof BRIDGE_METHODS)[M][K] extends V ? M : never }[BridgeMethod];
/** The methods of `window.airlock`. */
export type ViewerMethod = MethodsWhere<'window', 'viewer'>;
/** The methods of `window.airlockPrompt`. */
export type PromptMethod = MethodsWhere<'window', 'prompt'>;
/** The methods that need a grant. */
export type GrantMethod = MethodsWhere<'grant', true>;

const ALL = Object.keys(BRIDGE_METHODS) as BridgeMethod[];
/** The viewer preload's allowlist: one function each on `window.airlock`. */
export const VIEWER_METHODS: readonly ViewerMethod[] = ALL.filter((m): m is ViewerMethod => BRIDGE_METHODS[m].window === 'viewer');
/** The prompt preload's allowlist: one function each on `window.airlockPrompt`. */
export const PROMPT_METHODS: readonly PromptMethod[] = ALL.filter((m): m is PromptMethod => BRIDGE_METHODS[m].window === 'prompt');
/** Methods that return raw bytes or facts about them and so need a grant bound to the caller. */
export const GRANT_METHODS: ReadonlySet<BridgeMethod> = new Set(ALL.filter((m) => BRIDGE_METHODS[m].grant));
