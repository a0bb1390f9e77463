// An in-memory `AirlockBridge` for component tests and the renderer's dev page. It runs the real
// shared/ Sanitizer over a few sample artifacts (and one periodic artifact of any size, up to many
// GiB, whose bytes are computed instead of stored) and answers every bridge method the way main
// does: sanitized text and span metadata freely, raw bytes only under a grant. Test-only code.
import type { AirlockBridge } from '../../shared/bridge/contract';
import { MAX_RAW_READ, MAX_SEARCH_HITS, MAX_SPANS_PER_CALL, MAX_TEXT_LINES } from '../../shared/bridge/contract';
import type { FollowUpdate, RequestView, RunningSummary,
  ArtifactSummary, AuditView, Bookmark, ChunkLogView, ChunkRowView, CopyKind, ExportKind, GrantInfo, IndexStatus,
  DecodedPayload, Minimap, PayloadPage, RawAccessOutcome, RawPage, RunningRawPage, RecordSummary, RemovalReport, ScreenStatus, SearchHits, SpanInfo, SpanValue, TextLine, TextPage,
  TextPiece, TextPosition, VaultInfo,
} from '../../shared/bridge/types';
import { SPAN_CLASS_COUNT, SPAN_CLASS_NAMES, SpanFlag } from '../../shared/parser/span-class';
import { Sanitizer } from '../../shared/sanitize/sanitizer';
import { isInert } from '../../shared/sanitize/inert';
import { formatHexRows } from '../../shared/hex/rows';
import { formatRowText } from '../../shared/hex/text';
import { captureChunks, hostileTranscript, periodicUnit } from './samples';
import { sha256Hex } from './sha256';
import { screenViewOf } from '../../app/services/screen/view';
import { DECODED_OSC, decodeOsc, decodeTags } from '../../app/services/artifact/payload-decode';

const dec = new TextDecoder();

/** What the fake knows of one artifact, small (stored) or periodic (computed). */
interface Model {
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
  spans(offset: number, length: number): SpanInfo[];
  spanAtIndex(index: number): SpanInfo | null;
  /** The value of span `index` (main hands it out under a grant only: getSpanValues). */
  codeOf(index: number): number;
  readonly spanCount: number;
  readonly lineCount: number;
  lines(first: number, count: number): TextLine[];
  textPositionOf(raw: number): TextPosition | null;
  readonly report: RemovalReport;
  /** Raw offsets where `query` occurs in the sanitized text, with the total. */
  searchText(query: string, caseSensitive: boolean): { hits: number[]; total: number; hitLength: number };
  searchRaw(pattern: (number | null)[]): { hits: number[]; total: number };
  minimap(buckets: number): Minimap;
}

function terminatorOf(bytes: Uint8Array, offset: number, length: number, cls: number, flags: number): string | null {
  if (flags & SpanFlag.Unterminated) return 'EOF';
  if (cls >= 4 && cls <= 8) {
    const last = bytes[offset + length - 1];
    const before = length >= 2 ? bytes[offset + length - 2] : -1;
    if (last === 0x07) return 'BEL';
    if (last === 0x5c && before === 0x1b) return 'ST';
    if (last === 0x9c) return 'C1 ST';
    if (last === 0x18) return 'CAN';
    if (last === 0x1a) return 'SUB';
    if (last === 0x1b) return 'ESC';
    return null;
  }
  if (cls === 2 || cls === 3) return flags & SpanFlag.Malformed ? null : 'final';
  return null;
}

/** Sanitizes `bytes` whole and cuts the result into lines of pieces the way the artifact index does. */
function buildSmall(bytes: Uint8Array): {
  spans: SpanInfo[]; codes: number[]; lines: TextLine[]; report: RemovalReport; text: string; textRaw: number[];
} {
  const found: { span: SpanInfo; code: number }[] = [];
  const sanitizer = new Sanitizer({
    mapOffsets: true,
    hooks: {
      onSpan: (cls, offset, length, meaning, flags, code) => {
        found.push({ span: { index: found.length, offset, length, cls, meaning, flags, terminator: terminatorOf(bytes, offset, length, cls, flags) }, code });
      },
    },
  });
  const parts = [sanitizer.write(bytes), sanitizer.end()];
  const textBytes = new Uint8Array(parts[0].length + parts[1].length);
  textBytes.set(parts[0]);
  textBytes.set(parts[1], parts[0].length);
  const map = sanitizer.map!;
  const report = sanitizer.getReport();
  found.sort((a, b) => a.span.offset - b.span.offset || b.span.length - a.span.length);
  found.forEach((f, i) => ((f.span as { index: number }).index = i));
  const spans = found.map((f) => f.span);
  const codes = found.map((f) => f.code);

  const lines: TextLine[] = [];
  let pieces: TextPiece[] = [];
  let lineStartRaw = 0;
  let lineTextOffset = 0;
  let nextSpan = 0;
  let run: { text: string; raw: number; rawLength: number } | null = null;
  const flushRun = () => {
    if (run) pieces.push({ t: 'text', text: run.text, raw: run.raw, rawLength: run.rawLength, direct: true });
    run = null;
  };
  const chipsUpTo = (raw: number) => {
    while (nextSpan < spans.length && spans[nextSpan].offset <= raw) {
      flushRun();
      pieces.push({ t: 'chip', span: spans[nextSpan++] });
    }
  };
  const endLine = (rawEnd: number, textEnd: number) => {
    flushRun();
    lines.push({ line: lines.length, textOffset: lineTextOffset, rawStart: lineStartRaw, rawEnd, continued: false, pieces });
    pieces = [];
    lineStartRaw = rawEnd;
    lineTextOffset = textEnd;
  };
  const textRaw: number[] = [];
  let p = 0;
  while (p < textBytes.length) {
    const b = textBytes[p];
    const len = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    const raw = map.textToRaw(p);
    for (let k = 0; k < len; k++) textRaw.push(raw + k);
    let direct = true;
    for (let k = 0; k < len; k++) if (bytes[raw + k] !== textBytes[p + k] || map.textToRaw(p + k) !== raw + k) direct = false;
    chipsUpTo(direct ? raw : raw - 1);
    const ch = dec.decode(textBytes.subarray(p, p + len));
    if (b === 0x0a) {
      if (direct) {
        endLine(raw + 1, p + 1);
      } else {
        chipsUpTo(raw);
        flushRun();
        pieces.push({ t: 'synthetic', text: '\n', raw, rawLength: 1 });
        endLine(raw + 1, p + 1);
      }
    } else if (!direct) {
      flushRun();
      const span = spans.find((s) => s.offset === raw && s.cls === 9);
      chipsUpTo(raw);
      pieces.push({ t: 'text', text: ch, raw, rawLength: span?.length ?? 1, direct: false });
    } else if (run && run.raw + run.rawLength === raw) {
      run.text += ch;
      run.rawLength += len;
    } else {
      flushRun();
      run = { text: ch, raw, rawLength: len };
    }
    p += len;
  }
  chipsUpTo(Number.MAX_SAFE_INTEGER);
  endLine(bytes.length, textBytes.length);
  if (lines.length > 1 && lines[lines.length - 1].pieces.length === 0 && lines[lines.length - 1].rawStart === bytes.length) lines.pop();
  return { spans, codes, lines, report, text: dec.decode(textBytes), textRaw };
}

function overlapping(spans: readonly SpanInfo[], offset: number, length: number): SpanInfo[] {
  const end = offset + length;
  const out: SpanInfo[] = [];
  for (const s of spans) {
    if (s.offset >= end) break;
    if (s.offset + s.length > offset) out.push(s);
    if (out.length >= MAX_SPANS_PER_CALL) break;
  }
  return out;
}

function matchAt(bytes: Uint8Array, at: number, pattern: (number | null)[]): boolean {
  for (let k = 0; k < pattern.length; k++) {
    if (at + k >= bytes.length) return false;
    if (pattern[k] !== null && bytes[at + k] !== pattern[k]) return false;
  }
  return true;
}

function searchIn(haystack: string, needle: string, caseSensitive: boolean): number[] {
  const h = caseSensitive ? haystack : haystack.toLowerCase();
  const n = caseSensitive ? needle : needle.toLowerCase();
  const out: number[] = [];
  for (let i = h.indexOf(n); i >= 0; i = h.indexOf(n, i + 1)) out.push(i);
  return out;
}

function smallModel(bytes: Uint8Array): Model {
  const built = buildSmall(bytes);
  const utf8 = new TextEncoder();
  return {
    size: bytes.length,
    read: (offset, length) => bytes.slice(offset, Math.min(bytes.length, offset + length)),
    spans: (offset, length) => overlapping(built.spans, offset, length),
    spanAtIndex: (i) => built.spans[i] ?? null,
    codeOf: (i) => built.codes[i] ?? 0,
    spanCount: built.spans.length,
    lineCount: built.lines.length,
    lines: (first, count) => built.lines.slice(first, first + count),
    textPositionOf(raw) {
      const line = built.lines.find((l) => raw >= l.rawStart && raw < l.rawEnd) ?? null;
      if (!line) return null;
      let best = 0;
      for (let i = 0; i < line.pieces.length; i++) {
        const piece = line.pieces[i];
        const [start, len] = pieceExtent(piece);
        if (raw >= start && raw < start + len) return { line: line.line, piece: i, kept: piece.t === 'text' && piece.direct };
        if (start <= raw) best = i;
      }
      return { line: line.line, piece: best, kept: false };
    },
    report: built.report,
    searchText(query, caseSensitive) {
      const textBytes = utf8.encode(built.text);
      const hits = searchIn(built.text, query, caseSensitive).map((charIndex) => {
        const byteIndex = utf8.encode(built.text.slice(0, charIndex)).length;
        return built.textRaw[Math.min(byteIndex, textBytes.length - 1)];
      });
      return { hits, total: hits.length, hitLength: utf8.encode(query).length };
    },
    searchRaw(pattern) {
      const hits: number[] = [];
      for (let i = 0; i + pattern.length <= bytes.length; i++) if (matchAt(bytes, i, pattern)) hits.push(i);
      return { hits, total: hits.length };
    },
    minimap(buckets) {
      const bucketBytes = Math.max(1, Math.ceil(bytes.length / buckets));
      const counts = Array.from({ length: SPAN_CLASS_COUNT }, () => new Array<number>(buckets).fill(0));
      for (const s of built.spans) counts[s.cls][Math.min(buckets - 1, Math.floor(s.offset / bucketBytes))]++;
      return { buckets, bucketBytes, counts };
    },
  };
}

/** `unit` repeated `repeats` times; the unit must end with LF and leave no sequence open. */
function periodicModel(unit: Uint8Array, repeats: number): Model {
  const u = unit.length;
  const one = buildSmall(unit);
  const size = u * repeats;
  const perUnit = one.spans.length;
  const linesPerUnit = one.lines.length;
  const textPerUnit = new TextEncoder().encode(one.text).length;
  const shiftSpan = (s: SpanInfo, k: number): SpanInfo => ({ ...s, index: k * perUnit + s.index, offset: k * u + s.offset });
  const shiftPiece = (piece: TextPiece, k: number): TextPiece =>
    piece.t === 'chip' ? { t: 'chip', span: shiftSpan(piece.span, k) }
      : piece.t === 'secret' ? { ...piece, secret: { ...piece.secret, offset: piece.secret.offset + k * u } }
        : { ...piece, raw: piece.raw + k * u };
  const scale = (n: number) => n * repeats;
  const r = one.report;
  const report: RemovalReport = {
    ...r,
    input_bytes: size, kept_bytes: scale(r.kept_bytes), removed_bytes: scale(r.removed_bytes), text_bytes: scale(r.text_bytes),
    removed_spans: scale(r.removed_spans), sha256: null,
    classes: Object.fromEntries(Object.entries(r.classes).map(([k, v]) => [k, { count: scale(v.count), bytes: scale(v.bytes) }])) as RemovalReport['classes'],
    meanings: Object.fromEntries(Object.entries(r.meanings).map(([k, v]) => [k, scale(v)])),
    unterminated: scale(r.unterminated), oversized: scale(r.oversized), malformed: scale(r.malformed), eight_bit: scale(r.eight_bit),
    invalid_utf8: scale(r.invalid_utf8),
  };
  const cap = (list: number[], total: number) => ({ hits: list, total });
  return {
    size,
    read(offset, length) {
      const end = Math.min(size, offset + length);
      const out = new Uint8Array(Math.max(0, end - offset));
      for (let i = 0; i < out.length; i++) out[i] = unit[(offset + i) % u];
      return out;
    },
    spans(offset, length) {
      const out: SpanInfo[] = [];
      const end = Math.min(size, offset + length);
      for (let k = Math.floor(offset / u); k * u < end && out.length < MAX_SPANS_PER_CALL; k++) {
        for (const s of one.spans) {
          const abs = k * u + s.offset;
          if (abs < end && abs + s.length > offset) out.push(shiftSpan(s, k));
        }
      }
      return out;
    },
    spanAtIndex(i) {
      if (i < 0 || i >= perUnit * repeats) return null;
      return shiftSpan(one.spans[i % perUnit], Math.floor(i / perUnit));
    },
    codeOf: (i) => one.codes[i % perUnit] ?? 0,
    spanCount: perUnit * repeats,
    lineCount: linesPerUnit * repeats,
    lines(first, count) {
      const out: TextLine[] = [];
      for (let j = first; j < Math.min(first + count, linesPerUnit * repeats); j++) {
        const k = Math.floor(j / linesPerUnit);
        const l = one.lines[j % linesPerUnit];
        out.push({ ...l, line: j, textOffset: l.textOffset + k * textPerUnit, rawStart: l.rawStart + k * u, rawEnd: l.rawEnd + k * u, pieces: l.pieces.map((p) => shiftPiece(p, k)) });
      }
      return out;
    },
    textPositionOf(raw) {
      if (raw < 0 || raw >= size) return null;
      const k = Math.floor(raw / u);
      const inner = smallPosition(one.lines, raw - k * u);
      return inner ? { ...inner, line: inner.line + k * linesPerUnit } : null;
    },
    report,
    searchText(query, caseSensitive) {
      const inUnit = searchIn(one.text, query, caseSensitive).map((c) => one.textRaw[new TextEncoder().encode(one.text.slice(0, c)).length]);
      const hits: number[] = [];
      for (let k = 0; k < repeats && hits.length < MAX_SEARCH_HITS; k++) for (const h of inUnit) hits.push(k * u + h);
      return { ...cap(hits.slice(0, MAX_SEARCH_HITS), inUnit.length * repeats), hitLength: new TextEncoder().encode(query).length };
    },
    searchRaw(pattern) {
      const doubled = new Uint8Array(u * 2);
      doubled.set(unit);
      doubled.set(unit, u);
      const inUnit: number[] = [];
      for (let i = 0; i < u; i++) if (matchAt(doubled, i, pattern)) inUnit.push(i);
      const hits: number[] = [];
      for (let k = 0; k < repeats && hits.length < MAX_SEARCH_HITS; k++) for (const h of inUnit) if (k * u + h + pattern.length <= size) hits.push(k * u + h);
      return cap(hits.slice(0, MAX_SEARCH_HITS), inUnit.length * repeats);
    },
    minimap(buckets) {
      const bucketBytes = Math.max(1, Math.ceil(size / buckets));
      const counts = Array.from({ length: SPAN_CLASS_COUNT }, () => new Array<number>(buckets).fill(0));
      const perClass = new Array<number>(SPAN_CLASS_COUNT).fill(0);
      for (const s of one.spans) perClass[s.cls]++;
      for (let c = 0; c < SPAN_CLASS_COUNT; c++) for (let b = 0; b < buckets; b++) counts[c][b] = Math.round((perClass[c] * bucketBytes) / u);
      return { buckets, bucketBytes, counts };
    },
  };
}

/** A piece's raw `[offset, length]`. */
function pieceExtent(p: TextPiece): [number, number] {
  if (p.t === 'chip') return [p.span.offset, p.span.length];
  if (p.t === 'secret') return [p.secret.offset, p.secret.length];
  return [p.raw, p.rawLength];
}

function smallPosition(lines: readonly TextLine[], raw: number): TextPosition | null {
  const line = lines.find((l) => raw >= l.rawStart && raw < l.rawEnd);
  if (!line) return null;
  for (let i = 0; i < line.pieces.length; i++) {
    const piece = line.pieces[i];
    const [start, len] = pieceExtent(piece);
    if (raw >= start && raw < start + len) return { line: line.line, piece: i, kept: piece.t === 'text' && piece.direct };
  }
  return { line: line.line, piece: 0, kept: false };
}

/** Parses `1b 5d ?? 3b` into bytes with null wildcards. */
export function parseHexPattern(pattern: string): (number | null)[] {
  const tokens = pattern.replace(/\s+/g, '').match(/.{1,2}/g) ?? [];
  return tokens.map((t) => {
    if (t === '??') return null;
    if (!/^[0-9a-fA-F]{2}$/.test(t)) throw new Error(`[bad-request] not a hex pattern: ${t}`);
    return parseInt(t, 16);
  });
}

export interface FakeBridgeOptions {
  /** Size of the periodic artifact (default 4 MiB; e.g. 4 GiB for scale tests). */
  bigBytes?: number;
  /** How `requestRawAccess` is answered (default: approve at once). */
  decide?: (ref: string) => Promise<'approve' | 'deny'> | 'approve' | 'deny';
  /** Grant lifetime (default 15 minutes). */
  grantTtlMs?: number;
  /** Clock (default Date.now). */
  now?: () => number;
}

/** What tests can look at: calls made, copies, exports, live grants. */
export interface FakeControl {
  calls: string[];
  copies: Array<{ kind: CopyKind; text: string }>;
  exports: Array<{ kind: ExportKind; name: string; text: string; scope?: string; range?: readonly [number, number] }>;
  rawReads: Array<{ offset: number; length: number }>;
  grants: Map<string, GrantInfo>;
  /** Ends every grant as if it expired. */
  expireAll(): void;
  decision: 'approve' | 'deny' | null;
  /** readRaw answers this much later (a slow main), when set. */
  rawDelayMs: number;
  /** The review queue `listRequests` serves; `reviewRequest` decides in place (approve: as `decision`, default approve). */
  requests: RequestView[];
  /**
   * Running captures `listRunning` serves; `followRunning` answers each one's `text` (the sanitized
   * text stored so far: a test appends to it) from the offset asked, with its `state` and `sealed`.
   */
  running: Array<{ summary: RunningSummary; text: string; pending: string; state: FollowUpdate['state']; sealed: FollowUpdate['sealed']; raw?: Uint8Array }>;
  /** readRunningRaw calls (each running capture's `raw` is its stdout's bytes so far; `requestRunningRawAccess` answers as `decision`, else approves). */
  runningReads: Array<{ offset: number; length: number }>;
}

export type FakeBridge = AirlockBridge & { control: FakeControl };

function hexId(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(Math.random() * 16).toString(16);
  return s;
}

function summarize(report: RemovalReport): ArtifactSummary['removal'] {
  const top = Object.entries(report.meanings).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([key, count]) => ({ key, count }));
  return {
    removedSpans: report.removed_spans, removedBytes: report.removed_bytes, top, truncated: report.truncated,
    withheldToEnd: report.withheld_to_end === true, ambiguous: report.ambiguous?.count ?? 0,
  };
}

/** The fake: three records (a hostile transcript, a two-stream capture, a big periodic file). */
export function createFakeBridge(options: FakeBridgeOptions = {}): FakeBridge {
  const now = options.now ?? (() => Date.now());
  const ttl = options.grantTtlMs ?? 15 * 60_000;
  const models = new Map<string, Model>();
  const summaries = new Map<string, ArtifactSummary>();
  const bookmarks = new Map<string, Bookmark[]>();
  const audit: AuditView[] = [];
  const control: FakeControl = {
    calls: [], copies: [], exports: [], rawReads: [], grants: new Map(), decision: null, rawDelayMs: 0, requests: [], running: [], runningReads: [],
    expireAll() {
      for (const [id, g] of control.grants) control.grants.set(id, { ...g, expiresAt: now() - 1 });
    },
  };
  const addArtifact = (bytes: Uint8Array | null, model: Model, stream: string, digestSeed?: string): ArtifactSummary => {
    const sha256 = bytes ? sha256Hex(bytes) : sha256Hex(new TextEncoder().encode(digestSeed ?? 'big'));
    const ref = `restricted:sha256:${sha256}`;
    models.set(ref, model);
    const summary: ArtifactSummary = { ref, sha256, size: model.size, stream, removal: summarize(model.report), rawAvailable: true };
    summaries.set(ref, summary);
    return summary;
  };

  const hostile = hostileTranscript();
  const hostileArt = addArtifact(hostile, smallModel(hostile), 'file');
  const chunks = captureChunks();
  const join = (stream: string) => {
    const parts = chunks.filter((c) => c.stream === stream).map((c) => c.bytes);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const stdout = join('stdout');
  const stderr = join('stderr');
  const outArt = addArtifact(stdout, smallModel(stdout), 'stdout');
  const errArt = addArtifact(stderr, smallModel(stderr), 'stderr');
  const unit = periodicUnit();
  const bigBytes = options.bigBytes ?? 4 << 20;
  const bigArt = addArtifact(null, periodicModel(unit, Math.floor(bigBytes / unit.length)), 'file', `big-${bigBytes}`);

  const chunkRows: ChunkRowView[] = [];
  {
    const pos: Record<string, { raw: number; text: number; san: Sanitizer }> = {
      stdout: { raw: 0, text: 0, san: new Sanitizer() }, stderr: { raw: 0, text: 0, san: new Sanitizer() },
    };
    chunks.forEach((c, seq) => {
      const p = pos[c.stream];
      const textLength = p.san.write(c.bytes).length;
      chunkRows.push({ seq, seqEnd: seq, stream: c.stream, offset: p.raw, length: c.bytes.length, textOffset: p.text, textLength, tMs: c.tMs });
      p.raw += c.bytes.length;
      p.text += textLength;
    });
  }

  const records: RecordSummary[] = [
    { id: 'rec-2026-12-01-build', createdAt: '2026-12-01T08:12:44Z', source: 'capture', title: 'make test', cwd: '/home/dev/airlock', exitCode: 0, signal: null, durationMs: 4210, rebuilt: false, artifacts: [hostileArt] },
    { id: 'rec-2026-12-01-suite', createdAt: '2026-12-01T08:31:02Z', source: 'capture', title: 'npm run test:ci', cwd: '/home/dev/airlock', exitCode: 1, signal: null, durationMs: 140, rebuilt: false, artifacts: [outArt, errArt] },
    { id: 'rec-2026-12-01-worker', createdAt: '2026-12-01T08:40:19Z', source: 'file', title: 'worker-tick.log', cwd: null, exitCode: null, signal: null, durationMs: null, rebuilt: false, artifacts: [bigArt] },
  ];

  const model = (ref: string): Model => {
    const m = models.get(ref);
    if (!m) throw new Error(`[not-found] no artifact ${ref}`);
    return m;
  };
  const anyGrant = (id: string): GrantInfo => {
    const g = control.grants.get(id);
    if (!g) throw new Error('[no-grant] no such grant for this window');
    if (g.expiresAt <= now()) {
      control.grants.delete(id);
      throw new Error('[expired] the grant expired');
    }
    return g;
  };
  /** A live grant on a sealed artifact (a running capture's grant is refused, as main does). */
  const liveGrant = (id: string): GrantInfo & { ref: string } => {
    const g = anyGrant(id);
    if (g.ref === null) throw new Error('[forbidden] the grant covers a running capture\'s stream');
    return g as GrantInfo & { ref: string };
  };
  const log = (action: string, details: AuditView['details'] = {}) => audit.push({ seq: audit.length + 1, ts: new Date(now()).toISOString(), action, actor: 'viewer', details });
  const status = (ref: string): IndexStatus => {
    const m = model(ref);
    return { ref, state: 'done', bytesDone: m.size, totalBytes: m.size, spans: m.spanCount, textBytes: m.report.text_bytes, textLines: m.lineCount, cached: true, elapsedMs: 1, error: null };
  };
  const inert = (text: string) => {
    if (!isInert(text)) throw new Error('[bad-request] text is not inert');
  };

  const bridge: AirlockBridge = {
    async getVaultInfo(): Promise<VaultInfo> {
      return { root: '~/.airlock/demo-vault', demo: true, records: records.length, windowId: 1, version: '0.1.0-fake' };
    },
    async listRecords() {
      return records;
    },
    async openFile() {
      return null;
    },
    async startIndex(ref) {
      return status(ref);
    },
    async getIndexStatus(ref) {
      return status(ref);
    },
    async cancelIndex(ref) {
      return status(ref);
    },
    async getReport(ref) {
      return model(ref).report;
    },
    async getSpans(ref, offset, length) {
      return model(ref).spans(offset, length);
    },
    async findSpan(ref, from, direction, filter) {
      const m = model(ref);
      const test = (s: SpanInfo) =>
        (filter.cls === undefined || s.cls === filter.cls) && (filter.meaning === undefined || s.meaning === filter.meaning);
      // Walk spans by index; the big model's spans are periodic so a bounded walk finds one.
      const limit = Math.min(m.spanCount, 200_000);
      if (direction === 1) {
        const near = m.spans(from, 1 << 16).find((s) => s.offset >= from && test(s));
        if (near) return near;
        for (let i = 0, seen = 0; i < m.spanCount && seen < limit; i++, seen++) {
          const s = m.spanAtIndex(i)!;
          if (s.offset >= from && test(s)) return s;
        }
        return null;
      }
      const start = Math.max(0, from - (1 << 16));
      const near = m.spans(start, from - start).filter((s) => s.offset < from && test(s)).pop();
      if (near) return near;
      for (let i = m.spanCount - 1, seen = 0; i >= 0 && seen < limit; i--, seen++) {
        const s = m.spanAtIndex(i)!;
        if (s.offset < from && test(s)) return s;
      }
      return null;
    },
    async getMinimap(ref, buckets) {
      return model(ref).minimap(buckets);
    },
    async getTextLines(ref, firstLine, count): Promise<TextPage> {
      const m = model(ref);
      return { firstLine, totalLines: m.lineCount, lines: m.lines(firstLine, Math.min(count, MAX_TEXT_LINES)) };
    },
    async textPositionOf(ref, rawOffset) {
      return model(ref).textPositionOf(rawOffset);
    },
    async getScreen(ref, size): Promise<ScreenStatus> {
      // The real screen engine over the model's bytes, as main's worker runs it over the raw file
      // (done at once here; the fake keeps to 16 MiB, its periodic models go to many GiB).
      const m = model(ref);
      const base = { ref, cols: size.cols, rows: size.rows, bytesDone: m.size, totalBytes: m.size, elapsedMs: 1 };
      if (m.size > 16 << 20) return { ...base, state: 'failed', error: 'the fake bridge reconstructs at most 16 MiB', view: null };
      return { ...base, state: 'done', error: null, view: screenViewOf(m.read(0, m.size), size.cols, size.rows) };
    },
    async listRunning() {
      return control.running.map((r) => r.summary);
    },
    async followRunning(id, stream, from, buckets): Promise<FollowUpdate> {
      const r = control.running.find((x) => x.summary.id === id);
      if (!r) throw new Error(`[not-found] no running capture ${id}`);
      const bytes = new TextEncoder().encode(stream === 'stdout' ? r.text : '');
      if (from > bytes.length) throw new Error('[bad-request] past the text');
      const text = new TextDecoder().decode(bytes.subarray(from));
      return {
        id, stream, state: r.state, sealed: r.sealed, text, from, next: bytes.length, textBytes: bytes.length, pending: r.pending, textPastLimit: null, textWithheld: false,
        rawBytes: bytes.length, chunks: 1, elapsedMs: 1000, scannedBytes: bytes.length,
        removal: { removedSpans: 0, removedBytes: 0, top: [], truncated: false, withheldToEnd: false, ambiguous: 0, danger: {} },
        minimap: { buckets: Math.min(buckets, 1), bucketBytes: Math.max(1, bytes.length), counts: [] },
      };
    },
    async getRunningScreen(id, stream, size): Promise<ScreenStatus> {
      const r = control.running.find((x) => x.summary.id === id);
      if (!r) throw new Error(`[not-found] no running capture ${id}`);
      const bytes = new TextEncoder().encode(stream === 'stdout' ? r.text : '');
      return { ref: `running:${id}:${stream}`, cols: size.cols, rows: size.rows, state: 'done', bytesDone: bytes.length, totalBytes: bytes.length, elapsedMs: 1, error: null, view: screenViewOf(bytes, size.cols, size.rows) };
    },
    async cancelRunningScreen(id, stream, size): Promise<ScreenStatus> {
      return { ref: `running:${id}:${stream}`, cols: size.cols, rows: size.rows, state: 'cancelled', bytesDone: 0, totalBytes: 0, elapsedMs: 0, error: 'cancelled', view: null };
    },
    async cancelScreen(ref, size): Promise<ScreenStatus> {
      return { ref, cols: size.cols, rows: size.rows, state: 'cancelled', bytesDone: 0, totalBytes: 0, elapsedMs: 0, error: 'cancelled', view: null };
    },
    async cancelSearch() {
      log('search-cancelled', {});
    },
    async searchText(ref, query, opts): Promise<SearchHits> {
      const t0 = now();
      const r = model(ref).searchText(query, opts.caseSensitive ?? false);
      return { hits: r.hits.slice(0, MAX_SEARCH_HITS), hitLength: r.hitLength, total: r.total, complete: true, elapsedMs: now() - t0 };
    },
    async getChunkLog(recordId): Promise<ChunkLogView> {
      if (recordId !== 'rec-2026-12-01-suite') return { rows: [], total: 0, coalesced: false, complete: true };
      return { rows: chunkRows, total: chunkRows.length, coalesced: false, complete: true };
    },
    async requestRawAccess(ref, opts): Promise<RawAccessOutcome> {
      model(ref);
      log('raw-request', { ref });
      const decision = control.decision ?? (options.decide ? await options.decide(ref) : 'approve');
      if (decision === 'deny') {
        log('raw-denied', { ref });
        return { state: 'denied', why: 'The reviewer denied the request.' };
      }
      const grant: GrantInfo = {
        id: `g-${hexId(32)}`, ref, running: null, windowId: 1, range: opts.range ? [opts.range[0], opts.range[1]] : null,
        reason: opts.reason ?? 'viewer', createdAt: now(), expiresAt: now() + ttl,
      };
      control.grants.set(grant.id, grant);
      log('raw-granted', { ref, grant: grant.id });
      return { state: 'granted', grant };
    },
    async requestRunningRawAccess(id, stream, opts): Promise<RawAccessOutcome> {
      if (!control.running.some((r) => r.summary.id === id && r.summary.streams.includes(stream))) throw new Error(`[not-found] no running capture ${id} with a stream ${stream}`);
      log('raw-request', { record: id, stream });
      if ((control.decision ?? 'approve') === 'deny') return { state: 'denied', why: 'The reviewer denied the request.' };
      const grant: GrantInfo = { id: `g-${hexId(32)}`, ref: null, running: { recordId: id, stream }, windowId: 1, range: null, reason: opts.reason ?? 'viewer', createdAt: now(), expiresAt: now() + ttl };
      control.grants.set(grant.id, grant);
      log('raw-granted', { record: id, stream, grant: grant.id });
      return { state: 'granted', grant };
    },
    async readRunningRaw(grantId, offset, length): Promise<RunningRawPage> {
      const g = anyGrant(grantId);
      if (!g.running) throw new Error('[forbidden] a sealed-artifact grant');
      const r = control.running.find((x) => x.summary.id === g.running!.recordId)!;
      const raw = (g.running.stream === 'stdout' ? r.raw : undefined) ?? new Uint8Array(0);
      if (offset > raw.length) throw new Error('[bad-request] past the bytes so far');
      control.runningReads.push({ offset, length });
      return { offset, bytes: raw.slice(offset, Math.min(raw.length, offset + length)), size: raw.length, sealed: r.sealed?.ref ?? null };
    },
    async listGrants() {
      return [...control.grants.values()].filter((g) => g.expiresAt > now());
    },
    async revokeGrant(id) {
      control.grants.delete(id);
      log('raw-revoked', { grant: id });
    },
    async readRaw(grantId, offset, length): Promise<RawPage> {
      const g = liveGrant(grantId);
      if (length > MAX_RAW_READ) throw new Error('[too-large] at most 1 MiB a call');
      const m = model(g.ref);
      if (g.range && (offset < g.range[0] || offset + length > g.range[1])) throw new Error('[forbidden] outside the granted range');
      control.rawReads.push({ offset, length });
      if (control.rawDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, control.rawDelayMs));
      return { offset, bytes: m.read(offset, length) };
    },
    async getSpanValues(grantId, offset, length): Promise<SpanValue[]> {
      const g = liveGrant(grantId);
      const m = model(g.ref);
      const [lo, hi] = g.range ?? [0, m.size];
      return m.spans(offset, length).filter((s) => s.offset >= lo && s.offset + s.length <= hi).map((s) => ({ index: s.index, offset: s.offset, code: m.codeOf(s.index) }));
    },
    // The samples hold no secret the fake would find (the real index runs the redaction stage).
    async getSecrets() {
      return [];
    },
    async getSecretValues(grantId) {
      liveGrant(grantId);
      return [];
    },
    async getPayloads(grantId, offset, length): Promise<PayloadPage> {
      const g = liveGrant(grantId);
      const m = model(g.ref);
      const [lo, hi] = g.range ?? [0, m.size];
      const payloads: DecodedPayload[] = [];
      let run: { offset: number; end: number; span: number; cps: number[] } | null = null;
      const flush = () => {
        if (run) payloads.push({ ...decodeTags(run.cps, run.cps.length), offset: run.offset, length: run.end - run.offset, span: run.span });
        run = null;
      };
      for (const s of m.spans(offset, length)) {
        if (s.offset < lo || s.offset + s.length > hi) continue;
        const code = m.codeOf(s.index);
        const tag = s.cls === 10 && code >= 0xe0000 && code <= 0xe007f;
        if (run && (!tag || run.end !== s.offset)) flush();
        if (tag) {
          run ??= { offset: s.offset, end: s.offset, span: s.index, cps: [] };
          run.cps.push(code);
          run.end = s.offset + s.length;
        } else if (s.cls === 4 && DECODED_OSC.has(code)) {
          const d = decodeOsc(m.read(s.offset, s.length), false);
          if (d) payloads.push({ ...d, offset: s.offset, length: s.length, span: s.index });
        }
      }
      flush();
      return { payloads, next: null };
    },
    async searchRaw(grantId, query): Promise<SearchHits> {
      const g = liveGrant(grantId);
      const pattern = query.mode === 'hex' ? parseHexPattern(query.pattern) : Array.from(new TextEncoder().encode(query.pattern));
      const r = model(g.ref).searchRaw(pattern);
      return { hits: r.hits.slice(0, MAX_SEARCH_HITS), hitLength: pattern.length, total: r.total, complete: true, elapsedMs: 1 };
    },
    async listBookmarks(ref) {
      return bookmarks.get(ref) ?? [];
    },
    async saveBookmark(ref, b) {
      const saved: Bookmark = { id: `b-${hexId(16)}`, offset: b.offset, length: b.length, note: b.note, createdAt: new Date(now()).toISOString() };
      bookmarks.set(ref, [...(bookmarks.get(ref) ?? []), saved].sort((x, y) => x.offset - y.offset));
      return saved;
    },
    async deleteBookmark(ref, id) {
      bookmarks.set(ref, (bookmarks.get(ref) ?? []).filter((b) => b.id !== id));
    },
    async copyText(kind, text) {
      if (text === '') throw new Error('[bad-request] copyText: argument 2: nothing to copy');
      inert(text);
      control.copies.push({ kind, text });
    },
    async exportText(kind, name, text) {
      inert(text);
      control.exports.push({ kind, name, text });
      return { saved: true, name };
    },
    async exportHexDump(grantId, opts) {
      // As main: the range (or all the grant covers), its scope, one export; rows in the shared format.
      const g = liveGrant(grantId);
      const m = model(g.ref);
      const bounds: [number, number] = g.range ? [g.range[0], g.range[1]] : [0, m.size];
      const [start, end] = opts.range ?? bounds;
      if (start < bounds[0] || end > bounds[1]) throw new Error('[forbidden] outside the granted range');
      const scope = opts.range ? 'selection' as const : g.range ? 'granted-range' as const : 'artifact' as const;
      const bytes = m.read(start, Math.min(end - start, 1 << 22));
      const text = formatHexRows(bytes, start, { width: 16, lookahead: new Uint8Array(0) }).map((r) => formatRowText(r)).join('\n');
      inert(text);
      const name = `airlock-${scope}.hexdump.txt`;
      control.exports.push({ kind: 'hex-dump', name, text, scope, range: [start, end] });
      log('text.exported', { kind: 'hex-dump', scope });
      return { saved: true, name, scope, range: [start, end] };
    },
    async listAudit(limit) {
      return audit.slice(-limit);
    },
    async listRequests() {
      return control.requests;
    },
    async reviewRequest(id, decision, note) {
      const r = control.requests.find((x) => x.id === id);
      if (!r) throw new Error(`[not-found] no request ${id} in this vault`);
      if (r.state !== 'pending') throw new Error(`[bad-request] request ${id} is ${r.state}: only a pending request can be decided`);
      // Approve stands for main's prompt: the human's answer there is `control.decision`.
      const outcome = decision === 'deny' ? 'denied' : (control.decision ?? 'approve') === 'approve' ? 'approved' : 'denied';
      const extract: RequestView['extract'] = outcome === 'approved' && r.range ? { kind: 'hex-range', range: r.range, rows: [`${r.range[0].toString(16).padStart(8, '0')}  1b 5d 35 32                                       |^[]52|`] } : null;
      const updated: RequestView = { ...r, state: outcome, decidedAt: new Date(now()).toISOString(), decidedBy: 'reviewer@host via desktop', note: note || null, extract };
      control.requests = control.requests.map((x) => (x.id === id ? updated : x));
      log(outcome === 'approved' ? 'request.approved' : 'request.denied', { request: id });
      return updated;
    },
  };
  const wrapped = {} as FakeBridge;
  for (const [name, fn] of Object.entries(bridge)) {
    (wrapped as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      control.calls.push(name);
      return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  wrapped.control = control;
  return wrapped;
}

export const FAKE_CLASS_NAMES = SPAN_CLASS_NAMES;
