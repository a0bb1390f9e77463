// Result and value types of the renderer bridge (`window.airlock`). Platform-neutral: main,
// preload, the e2e harness and the renderer all import these. Offsets and sizes are plain JS
// numbers (safe integers, never 32-bit): a 4 GiB artifact is an ordinary case.
import type { DangerCategory } from '../parser/danger';
import type { RemovalReport } from '../sanitize/report';

/** `restricted:sha256:<64 hex>`: names one raw artifact. Only main can resolve it to bytes. */
export type ArtifactRef = string;

/** Where an artifact's bytes came from. */
export type ArtifactSourceKind = 'capture' | 'file' | 'script' | 'asciicast';

/**
 * One raw artifact as the vault browser lists it. Every string here is sanitized display text
 * (it went through the sanitizer and `terminalSafeLine`), never raw bytes.
 */
export interface ArtifactSummary {
  readonly ref: ArtifactRef;
  readonly sha256: string;
  readonly size: number;
  /** `stdout`, `stderr` for captures; `file` for imports (also `stdin` for script(1) input). */
  readonly stream: string;
  /** The artifact's sanitizer report totals (full report: `getReport`). */
  readonly removal: RemovalSummary;
  /** False once prune ended the raw retention: text and report remain, bytes are gone. */
  readonly rawAvailable: boolean;
}

/** Totals of a removal report for lists and prompts. */
export interface RemovalSummary {
  readonly removedSpans: number;
  readonly removedBytes: number;
  /** Up to five `class: meaning` keys, most dangerous first, then by count (shared/parser/danger.ts). */
  readonly top: ReadonlyArray<{ readonly key: string; readonly count: number }>;
  /** Removed spans per danger category, only those that occur, most dangerous first (absent from older mains). */
  readonly danger?: Readonly<Partial<Record<DangerCategory, number>>>;
  readonly truncated: boolean;
  /** Text was withheld to end of input (one-reading rule). */
  readonly withheldToEnd: boolean;
  /** Stretches where a UTF-8 and an 8-bit terminal disagreed (report `ambiguous`; 0 in reports older than that rule). */
  readonly ambiguous: number;
}

/** One vault record (a capture or an imported file) with its artifacts. */
export interface RecordSummary {
  readonly id: string;
  readonly createdAt: string;
  readonly source: ArtifactSourceKind;
  /** Sanitized command line (captures) or sanitized file name (imports). */
  readonly title: string;
  readonly cwd: string | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number | null;
  /** Rebuilt from decoded text (asciicast), not byte-exact: say so wherever it is shown. */
  readonly rebuilt: boolean;
  readonly artifacts: readonly ArtifactSummary[];
}

/**
 * A capture that is still running (its record is being written under `running/<id>/` in the vault),
 * as the vault browser lists it. Strings are sanitized display text.
 */
export interface RunningSummary {
  readonly id: string;
  readonly startedAt: string;
  /** Sanitized command line. */
  readonly title: string;
  readonly cwd: string | null;
  /** The streams it captures (`stdout`, `stderr`). */
  readonly streams: readonly string[];
  /**
   * `running`, or `interrupted`: the Airlock process writing it is gone, so it will never be sealed
   * by it (the next capture or `airlock vault recover` seals it as an interrupted record).
   */
  readonly state: 'running' | 'interrupted';
  /** Sanitized text bytes stored so far per stream. */
  readonly textBytes: Readonly<Record<string, number>>;
}

/**
 * One step of following a running capture's stream (`followRunning`): the sanitized text stored
 * since `from`, and where the capture stands. Sanitized text, counts and offsets only: never a raw
 * byte or a span's value.
 */
export interface FollowUpdate {
  readonly id: string;
  readonly stream: string;
  /**
   * `running`; `sealed` (the record is stored: open `sealed.ref` instead); `interrupted` (its Airlock
   * process is gone: no more will come); `failed` (the capture failed and left no record).
   */
  readonly state: 'running' | 'sealed' | 'interrupted' | 'failed';
  /** Once sealed: the sealed record's artifact of this stream, and whether it is marked interrupted. */
  readonly sealed: { readonly recordId: string; readonly ref: ArtifactRef | null; readonly interrupted: boolean } | null;
  /** The settled sanitized text (redacted as the capture stores it) from byte `from`: whole characters, at most MAX_FOLLOW_TEXT bytes. */
  readonly text: string;
  readonly from: number;
  /** Text byte where `text` ends: the next call's `from`. */
  readonly next: number;
  /** Settled text bytes stored so far (above `next`: ask again at once). */
  readonly textBytes: number;
  /** Text of the unfinished last line that may be shown early (a prompt, a progress line); '' unless `next` reached `textBytes`. */
  readonly pending: string;
  /**
   * The capture's text limit (its --max-text, bytes) once the stream's text went past it, else null:
   * while it runs only the first that many bytes are stored; the sealed record keeps head and tail.
   */
  readonly textPastLimit: number | null;
  /** The capture runs with redaction off (its stored text may hold secrets): no text is served until it is sealed. */
  readonly textWithheld: boolean;
  /** Raw bytes received so far (what the chunk log names). */
  readonly rawBytes: number;
  /** Chunks the collector logged so far. */
  readonly chunks: number;
  /** Time of the last chunk, ms since the capture started. */
  readonly elapsedMs: number;
  /** Raw bytes counted into `removal` and `minimap` so far (behind `rawBytes` while catching up). */
  readonly scannedBytes: number;
  readonly removal: RemovalSummary;
  readonly minimap: Minimap;
}

/** What the app is looking at. */
export interface VaultInfo {
  /** Display form of the vault path (sanitized). */
  readonly root: string;
  /** The built-in demo vault made from `assets/samples`. */
  readonly demo: boolean;
  readonly records: number;
  /** This window's id: grants are bound to it. */
  readonly windowId: number;
  readonly version: string;
  /** The artifact the app was started on (`airlock open FILE|REF`), to open at once; else absent/null. */
  readonly open?: ArtifactRef | null;
}

/** Progress of the span index of one artifact (built in a worker in main, cached per digest). */
export interface IndexStatus {
  readonly ref: ArtifactRef;
  readonly state: 'none' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly bytesDone: number;
  readonly totalBytes: number;
  readonly spans: number;
  readonly textBytes: number;
  readonly textLines: number;
  /** Served from the vault's index cache (second open). */
  readonly cached: boolean;
  /** Suspected secrets in the sanitized text (counts by rule, never a value), once indexed; else null. */
  readonly secrets?: { readonly count: number; readonly rules: Readonly<Record<string, number>> } | null;
  readonly elapsedMs: number;
  readonly error: string | null;
}

/**
 * One annotated span (from the index) as anyone may see it: where it is, its class and meaning
 * (a name from the parser's fixed tables), how it ended. Never its value: the code point, byte,
 * final byte, parameter or command number it carries is raw content ({@link SpanValue}, grant only).
 */
export interface SpanInfo {
  /** Index of the span in the artifact's span list (stable; used for next/previous). */
  readonly index: number;
  readonly offset: number;
  readonly length: number;
  /** `SpanClass` value; names in `SPAN_CLASS_NAMES`. */
  readonly cls: number;
  readonly meaning: string;
  /** `SpanFlag` bits. */
  readonly flags: number;
  /**
   * How a string or sequence ended: 'BEL', 'ST', 'C1 ST', 'CAN', 'SUB', 'ESC', 'EOF', 'final', 'C1' (cut
   * off by a C1 control), 'interrupted' (by another byte its grammar forbids), or null (not a sequence).
   */
  readonly terminator: string | null;
}

/**
 * The value a span carries, released only under a grant (`getSpanValues`), like hex: for C0/C1 the
 * control's code, for invisible spans the code point, for OSC the numeric command (-1: none), for
 * invalid UTF-8 the first byte, otherwise the final byte (0: none).
 */
export interface SpanValue {
  /** The span's index (as in {@link SpanInfo.index}). */
  readonly index: number;
  readonly offset: number;
  readonly code: number;
}

/** Per-class occurrence counts in equal byte buckets across the whole artifact. */
export interface Minimap {
  readonly buckets: number;
  readonly bucketBytes: number;
  /** `counts[cls][bucket]`. */
  readonly counts: readonly (readonly number[])[];
}

/** Printed text a terminal did not show at the end (the screen engine's finding; see `airlock screen`). */
export interface ScreenFindingView {
  readonly kind: 'overwritten' | 'erased' | 'concealed' | 'same_colour';
  /** Raw offset and length of the hidden characters' bytes. */
  readonly offset: number;
  readonly length: number;
  /** The hidden text, inert (as the sanitizer keeps it); at most MAX_SCREEN_FINDING_TEXT characters of it. */
  readonly text: string;
  /** Where it was printed (1-based), when known. */
  readonly line: number | null;
  readonly column: number | null;
  /** Raw offset of what hid it (the erasing control, or the character printed over it), when known. */
  readonly by: number | null;
}

/** What a terminal of `cols` x `rows` showed at the end of an artifact, and what it hid. */
export interface ScreenView {
  readonly cols: number;
  readonly rows: number;
  readonly emulator: string;
  readonly findings: readonly ScreenFindingView[];
  /** Findings past this many are not listed (`counts` still counts every one). */
  readonly truncated: boolean;
  readonly counts: { readonly overwritten: number; readonly erased: number; readonly concealed: number; readonly same_colour: number; readonly printed: number; readonly scrolledOut: number };
  /**
   * The last screen as a person saw it (concealed and same-colour cells blank), under the
   * sanitizer's reading: a cell shows a character only when the sanitized text keeps it; a cell the
   * emulator drew from bytes the sanitizer removed or withheld shows {@link WITHHELD_CELL}.
   */
  readonly screen: readonly string[];
  /** Cells of `screen` shown as {@link WITHHELD_CELL}. */
  readonly withheldCells: number;
  /**
   * Bytes fed to the emulator before the sanitizer had decided them (an open sequence or a
   * disagreement between readings longer than the engine looks ahead): characters they printed
   * are not followed (no findings; withheld on the screen). 0 on ordinary input.
   */
  readonly unfollowedBytes: number;
  readonly alternateScreen: boolean;
  readonly layoutVerified: boolean;
  /** Each erased finding names its control (false: past the engine's snapshot budget, some do not). */
  readonly causesComplete: boolean;
}

/** What a screen cell drawn from removed or withheld bytes shows instead (one cell wide). */
export const WITHHELD_CELL = '\u2591';

/** Where a screen reconstruction (`getScreen`) stands; `view` once it is done. */
export interface ScreenStatus {
  readonly ref: ArtifactRef;
  readonly cols: number;
  readonly rows: number;
  readonly state: 'running' | 'done' | 'failed' | 'cancelled';
  readonly bytesDone: number;
  readonly totalBytes: number;
  readonly elapsedMs: number;
  /** Why it failed or stopped (one line), else null. */
  readonly error: string | null;
  readonly view: ScreenView | null;
}

/**
 * A suspected secret in the sanitized text (the redaction stage of the capture, shared/redact, with
 * the vault's allowlist, run over the artifact's text when it is indexed): where it is and which
 * rule found it, never its value, which is raw content ({@link SecretValue}, grant only).
 */
export interface SecretInfo {
  /** Index of the secret in the artifact's list (stable). */
  readonly index: number;
  /** Rule id (docs/secrets.md), e.g. `github-token`, `private-key`. */
  readonly rule: string;
  /** Raw extent: the bytes its text came from (removed spans between them included). */
  readonly offset: number;
  readonly length: number;
  /** Where its value is in the sanitized text (UTF-8 byte offsets), and how long. */
  readonly textOffset: number;
  readonly textLength: number;
}

/** A secret's value, released only under a grant (`getSecretValues`), wholly inside the granted range. */
export interface SecretValue {
  readonly index: number;
  readonly rule: string;
  readonly offset: number;
  readonly length: number;
  /** The text the redaction stands for, as the sanitized text has it (inert); at most 16,384 characters. */
  readonly value: string;
  readonly truncated: boolean;
}

/**
 * What a removed span carried, decoded, released only under a grant (`getPayloads`): an OSC 52
 * clipboard write's base64, an OSC 8 link's target, an OSC 0/1/2 title, or the ASCII a run of tag
 * characters spells. Every string is caret notation (shared/hex, as the hex view writes bytes):
 * controls as `^[`, bidi and invisible characters as `<U+202E>`, so nothing decoded acts or reorders.
 */
export interface DecodedPayload {
  readonly kind: 'clipboard' | 'hidden-text' | 'link' | 'title';
  /** Raw extent (a run of tag characters: all of them). */
  readonly offset: number;
  readonly length: number;
  /** Index of the span (a tag run: its first). */
  readonly span: number;
  /** What else the span says, as app text with caret notation: the selections, the link's parameters, which title, the number of tag characters. */
  readonly detail: string;
  /** The decoded payload (an invalid one: as it was sent), at most 4,096 bytes of it. */
  readonly text: string;
  /** Its length in bytes (tag characters: how many); `text` shows the first 4,096. */
  readonly bytes: number;
  /** Only a part is shown (longer than 4,096 bytes, or a span longer than the part read). */
  readonly truncated: boolean;
  /** Why it could not be decoded (invalid base64: which character, where), or null. */
  readonly error: string | null;
}

/** Decoded payloads of a stretch; `next`: the raw offset to ask from for the rest (null: all listed). */
export interface PayloadPage {
  readonly payloads: DecodedPayload[];
  readonly next: number | null;
}

/** A piece of a sanitized text line: kept text, a chip for a removed span, or a suspected secret. */
export type TextPiece =
  | {
      readonly t: 'text';
      readonly text: string;
      /** Raw offset of the first byte this text came from. */
      readonly raw: number;
      readonly rawLength: number;
      /** True when the text's UTF-8 bytes are exactly raw[raw .. raw+rawLength) (1:1 mapping). */
      readonly direct: boolean;
    }
  /** `more`: further removed spans in the same gap after this chip, not listed (a bounded line). */
  | { readonly t: 'chip'; readonly span: SpanInfo; readonly more?: number }
  /** A line break or space the sanitizer made (CR, IND, CUP, …): where it came from. */
  | { readonly t: 'synthetic'; readonly text: string; readonly raw: number; readonly rawLength: number }
  /**
   * A suspected secret in place of its text (drawn as a chip with its rule name; copied and exported
   * as `⟦redacted:RULE⟧`). A secret over several lines (a private key block) has a piece on each:
   * `continued` on all but the first.
   */
  | { readonly t: 'secret'; readonly secret: SecretInfo; readonly continued: boolean };

/** One display line of sanitized text. Long lines are cut into several (`continued`). */
export interface TextLine {
  readonly line: number;
  readonly textOffset: number;
  readonly rawStart: number;
  readonly rawEnd: number;
  readonly continued: boolean;
  readonly pieces: readonly TextPiece[];
}

export interface TextPage {
  readonly firstLine: number;
  readonly totalLines: number;
  readonly lines: readonly TextLine[];
}

/** Where a raw offset lands in the sanitized text. */
export interface TextPosition {
  readonly line: number;
  /** Index in the line's pieces. */
  readonly piece: number;
  /** The byte was kept (false: removed, the position is the chip or the nearest text). */
  readonly kept: boolean;
}

/** A grant: permission for one window to read one artifact's raw bytes (optionally one range). */
export interface GrantInfo {
  readonly id: string;
  /**
   * The artifact the grant covers; null while it covers a running capture's stream (`running`),
   * set once that capture is sealed and the grant goes on over its sealed artifact.
   */
  readonly ref: ArtifactRef | null;
  /**
   * Set for a grant on one stream of a running capture (requestRunningRawAccess): it covers that
   * stream's bytes as they arrive (readRunningRaw), and, once the capture is sealed, the sealed
   * artifact of that stream (`ref`, read with readRaw and the other grant methods).
   */
  readonly running: { readonly recordId: string; readonly stream: string } | null;
  readonly windowId: number;
  /** `[start, end)` or null for the whole artifact. */
  readonly range: readonly [number, number] | null;
  readonly reason: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** What `exportHexDump` wrote: which bytes (the scope says whether that was a selection or all the grant covers). */
export interface HexDumpExport {
  readonly saved: boolean;
  /** File name chosen (printable ASCII), or null when cancelled. */
  readonly name: string | null;
  /** `selection`: the range asked for; `artifact`: the whole artifact; `granted-range`: all of a ranged grant. */
  readonly scope: 'selection' | 'artifact' | 'granted-range';
  readonly range: readonly [number, number];
}

export type RawAccessOutcome =
  | { readonly state: 'granted'; readonly grant: GrantInfo }
  | { readonly state: 'denied'; readonly why: string };

/** Raw bytes under a grant: at most MAX_RAW_READ bytes a call. */
export interface RawPage {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/**
 * Raw bytes of a running capture's stream under a grant (readRunningRaw): at most MAX_RAW_READ
 * bytes a call, all below `size`. The stream only grows: bytes below `size` never change.
 */
export interface RunningRawPage {
  readonly offset: number;
  readonly bytes: Uint8Array;
  /** Raw bytes of the stream readable now (stored and named by the capture's chunk log). */
  readonly size: number;
  /**
   * Null while the capture runs; once it is sealed, the sealed artifact the grant now covers (the
   * same bytes, read from the sealed file; `size` is then its whole size).
   */
  readonly sealed: ArtifactRef | null;
}

export interface SearchHits {
  /** Raw offsets (raw search) or raw offsets of the text hits (text search), ascending. */
  readonly hits: readonly number[];
  readonly hitLength: number;
  /** All hits in the artifact, even past `hits.length`. */
  readonly total: number;
  readonly complete: boolean;
  readonly elapsedMs: number;
}

export interface Bookmark {
  readonly id: string;
  readonly offset: number;
  readonly length: number;
  /** User's note (kept as text; shown escaped). */
  readonly note: string;
  readonly createdAt: string;
}

/** One row of a capture's chunk log: what the collector observed, in its order. */
export interface ChunkRowView {
  readonly seq: number;
  readonly seqEnd: number;
  readonly stream: string;
  readonly offset: number;
  readonly length: number;
  readonly textOffset: number;
  readonly textLength: number;
  readonly tMs: number;
}

export interface ChunkLogView {
  readonly rows: readonly ChunkRowView[];
  readonly total: number;
  readonly coalesced: boolean;
  readonly complete: boolean;
}

/** An audit entry as shown in the app (details are already metadata only). */
export interface AuditView {
  readonly seq: number;
  readonly ts: string;
  readonly action: string;
  readonly actor: string;
  readonly details: Readonly<Record<string, string | number | boolean | null>>;
}

export type CopyKind = 'hex' | 'caret' | 'c-array' | 'text' | 'offset';
export type ExportKind = 'hex-dump' | 'report-json' | 'report-md' | 'compare-md' | 'bookmarks-md';

/** What the prompt window shows (built by main from the vault; sanitized). */
/** What a prompt for raw access to a running capture's stream shows (PromptView.running). */
export interface RunningPromptView {
  readonly recordId: string;
  /** Sanitized command line. */
  readonly title: string;
  readonly cwd: string | null;
  readonly startedAt: string;
  readonly stream: string;
  /** Raw bytes of the stream received so far (what the chunk log names). */
  readonly bytesSoFar: number;
}

export interface PromptView {
  readonly requestId: string;
  /** The sealed artifact asked for; null for a running capture's stream (`running`). */
  readonly artifact: ArtifactSummary | null;
  /**
   * Set when the request is for a running capture's stream: no digest exists yet, so the human
   * types the last `confirmDigits` hex digits of its record id instead.
   */
  readonly running?: RunningPromptView | null;
  readonly record: Pick<RecordSummary, 'id' | 'title' | 'cwd' | 'createdAt' | 'source'>;
  readonly range: readonly [number, number] | null;
  /**
   * The reason the requester gave (may be empty: the human must give one): untrusted words, shown
   * quoted in a box of their own. Every control, bidi, invisible and line-breaking character is a
   * visible escape; at most MAX_SHOWN_REASON characters.
   */
  readonly requestedReason: string;
  /** The reason was longer than shown (`requestedReasonChars` characters given). */
  readonly requestedReasonTruncated: boolean;
  readonly requestedReasonChars: number;
  /**
   * Earlier prompts for this artifact from the same window that were denied or closed unanswered
   * in a row (0: none): a window that keeps asking is backed off, and the human sees it.
   */
  readonly earlierRefusals: number;
  readonly requester: string;
  readonly expiresInMs: number;
  /** How many hex digits of the digest the human must type. */
  readonly confirmDigits: number;
  /**
   * Set when the prompt approves a queued extract request (the review queue) rather than a grant
   * for this window: what the extract is and who asked. Absent for raw-access prompts.
   */
  readonly extract?: RequestView | null;
}

export type { RemovalReport };

/** Kinds of bounded extract an agent can ask for (`airlock request --kind`). */
export type ExtractKind = 'hex-range' | 'digest' | 'text';
/** Where a raw-access request stands; `expired` is computed from `expiresAt` on read. */
export type RequestState = 'pending' | 'approved' | 'denied' | 'expired';

/** What an approved request returned: hex/offset text, a digest, or sanitized text. Never raw bytes. */
export type ExtractView =
  | {
      readonly kind: 'hex-range';
      readonly range: readonly [number, number];
      /** Inert hex dump rows: `00000010  1b 5b 33 31 …  |^[[31m…|`. */
      readonly rows: readonly string[];
    }
  | {
      readonly kind: 'digest';
      /** The range hashed, or null for the whole artifact. */
      readonly range: readonly [number, number] | null;
      readonly bytes: number;
      readonly sha256: string;
      /** The digest the requester expected, and whether it matched (null without one). */
      readonly expect: string | null;
      readonly match: boolean | null;
    }
  | {
      readonly kind: 'text';
      readonly range: readonly [number, number];
      /** The range through the capture Sanitizer (inert text), cut at `MAX_EXTRACT_TEXT` characters. */
      readonly text: string;
      readonly textTruncated: boolean;
      /** The removal report's counts: spans and bytes removed, by class (no payload). */
      readonly removed: { readonly spans: number; readonly bytes: number; readonly classes: Readonly<Record<string, number>> };
      /** Hits of the search term in the sanitized text (character offsets), bounded. */
      readonly search: { readonly term: string; readonly total: number; readonly hits: ReadonlyArray<{ readonly offset: number; readonly line: number; readonly context: string }> } | null;
    };

/** One queued raw-access request as reviewers see it. Every string is display-safe (escaped). */
export interface RequestView {
  readonly id: string;
  readonly artifact: ArtifactRef;
  /** Size of the whole artifact (as the request was queued). */
  readonly size: number;
  readonly kind: ExtractKind;
  /** `[start, end)`, or null (digest of the whole artifact, text of a small artifact). */
  readonly range: readonly [number, number] | null;
  readonly expect: string | null;
  readonly search: string | null;
  /** The requester's reason, escaped (controls, bidi and tags as visible escapes). */
  readonly reason: string;
  /** `user@host via mcp|cli`. */
  readonly requester: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly state: RequestState;
  readonly decidedAt: string | null;
  /** `user@host via cli|desktop`. */
  readonly decidedBy: string | null;
  readonly note: string | null;
  /** Once approved: what the action returned. */
  readonly extract: ExtractView | null;
  /** Title of the record holding the artifact, sanitized (null when no record names it). */
  readonly title: string | null;
}
