import { Sanitizer, type CrMode, type RemovalReport } from '../../shared/sanitize';
import { MARKER_CLOSE, MARKER_OPEN } from '../../shared/redact';
import type { ParserLimits } from '../../shared/parser';
import { AuditLog, type AuditDetails } from '../audit';
import type { CaptureRecord, RawCommit, RunningEntry, RunningHandle, Vault } from '../vault';
import { CAPTURE_RECORD_VERSION } from './record';
import { CHUNK_FIELDS, MAX_CHUNK_ROWS, STREAMS, type ChunkLogJson, type ChunkRow, type StreamName } from './chunk-log';
import { parseRunningRow } from './running-record';
import { TextWindow, completeUtf8Prefix, type WindowedText } from './text-window';
import { ENVELOPE_VERSION } from './envelope';

/** What {@link sealInterrupted} did. */
export interface SealResult {
  /** Records sealed as interrupted, by id. */
  readonly sealed: string[];
  /** Running directories removed because their record was already sealed (a crash after sealing), or starts that never finished. */
  readonly removed: string[];
}

/** A start (`running/.<id>.….tmp`) older than this is a leftover: a start takes milliseconds. */
const STALE_START_MS = 10 * 60_000;
/** Bytes read at a time from a running record's files. */
const READ_BYTES = 1 << 20;

/**
 * Seals every running capture whose owner is gone (Airlock was killed, the machine lost power) as
 * a record marked `interrupted`, made from what it had stored, with a `capture.interrupted` audit
 * entry committing to it; removes running directories whose record is already sealed, and starts
 * that never finished. Runs at the start of every capture and prune and as `airlock vault
 * recover`, under the vault's retention lock (two sealers, or a prune, cannot take the same raw
 * temp file). Running captures of live processes, and of other hosts, are left alone.
 */
export async function sealInterrupted(vault: Vault, audit: AuditLog = AuditLog.forVault(vault.root)): Promise<SealResult> {
  const result: SealResult = { sealed: [], removed: [] };
  const candidates = await deadEntries(vault);
  if (candidates.length === 0) return result;
  const release = await vault.holdRetentionLock();
  try {
    // Judged again under the lock: another sealer may have been first.
    for (const entry of await deadEntries(vault)) {
      if (entry.kind === 'starting') {
        await vault.removeRunning(entry);
        result.removed.push(entry.name);
        continue;
      }
      if (await vault.recordExists(entry.name)) {
        await vault.removeRunning(entry);
        result.removed.push(entry.name);
        continue;
      }
      const handle = await vault.openRunning(entry.name);
      if (!handle) continue;
      try {
        await sealOne(vault, audit, handle);
      } finally {
        await handle.close();
      }
      await vault.removeRunning(entry);
      result.sealed.push(entry.name);
    }
  } finally {
    await release();
  }
  return result;
}

/** Entries of running/ to act on: starts that never finished, leftovers of sealed records, and captures whose owner is gone. */
async function deadEntries(vault: Vault): Promise<RunningEntry[]> {
  const out: RunningEntry[] = [];
  for (const entry of await vault.runningEntries()) {
    if (entry.kind === 'other') continue;
    if (entry.kind === 'starting') {
      const { lstat } = await import('node:fs/promises');
      const st = await lstat(entry.path).catch(() => null);
      if (st && Date.now() - st.mtimeMs > STALE_START_MS) out.push(entry);
      continue;
    }
    if (await vault.recordExists(entry.name)) {
      out.push(entry);
      continue;
    }
    const handle = await vault.openRunning(entry.name).catch(() => null);
    if (!handle) continue; // unreadable meta: verify reports it; nothing here can judge its owner
    const gone = handle.owner() === 'gone';
    await handle.close();
    if (gone) out.push(entry);
  }
  return out;
}

/** Builds, stores and audits the interrupted record of one running capture. */
async function sealOne(vault: Vault, audit: AuditLog, running: RunningHandle): Promise<void> {
  const meta = running.meta;
  const { rows, rawFiles } = await readRows(running);
  const cr: CrMode = meta.cr === 'overwrite' ? 'overwrite' : 'newline';
  const parserLimits = (typeof meta.parser_limits === 'object' && meta.parser_limits !== null ? meta.parser_limits : {}) as Partial<ParserLimits>;
  const limits = (meta.limits ?? {}) as { max_bytes?: number; max_text?: number; timeout_ms?: number | null };
  const maxText = Number.isSafeInteger(limits.max_text) && (limits.max_text as number) > 0 ? (limits.max_text as number) : 1 << 20;

  const raw: Partial<Record<StreamName, RawCommit>> = {};
  const reports: Partial<Record<StreamName, RemovalReport>> = {};
  const texts: Partial<Record<StreamName, WindowedText>> = {};
  const markers: Partial<Record<StreamName, { count: number; rules: Record<string, number> }>> = {};
  for (const stream of STREAMS) {
    // The raw bytes that reached the disk, and the removal report of exactly those bytes.
    const sanitizer = new Sanitizer({ cr, limits: parserLimits, reuseOutputBuffer: true });
    const commit = await vault.adoptRawTemp(rawFiles[stream] ?? null, (bytes) => void sanitizer.write(bytes));
    sanitizer.end();
    raw[stream] = commit;
    reports[stream] = { ...sanitizer.getReport(true), sha256: commit.sha256 };
    const text = await storedText(running, stream, maxText);
    texts[stream] = text.window;
    markers[stream] = text.markers;
  }
  const seen = rawSeen(rows);
  const lastT = rows.reduce((t, r) => Math.max(t, r[8]), 0);
  const now = new Date();
  const policy = meta.redaction as { mode?: unknown } | undefined;
  const redaction = {
    policy: meta.redaction ?? null,
    ...Object.fromEntries(STREAMS.map((s) => [s, { count: markers[s]!.count, rules: markers[s]!.rules, lookalikes: 0, redactions: [], listed_all: markers[s]!.count === 0 }])),
  };
  const sandbox = meta.sandbox ?? null;
  const record: CaptureRecord = {
    id: running.id,
    created_at: now.toISOString(),
    raw: Object.fromEntries(STREAMS.map((s) => [s, { sha256: raw[s]!.sha256, size: raw[s]!.size }])),
    kind: 'capture',
    record_version: CAPTURE_RECORD_VERSION,
    state: 'interrupted',
    command: meta.command,
    exit_code: null,
    metadata: {
      command: meta.command,
      argv: meta.argv,
      cwd: meta.cwd,
      started_at: meta.started_at,
      duration_ms: lastT,
      exit_code: null,
      signal: null,
      exit_status: null,
      truncated: true,
      termination: null,
      bytes: Object.fromEntries(STREAMS.map((s) => [s, raw[s]!.size])),
      raw_artifacts: Object.fromEntries(STREAMS.map((s) => [s, raw[s]!.ref])),
      text_truncated: Object.fromEntries(STREAMS.map((s) => [s, texts[s]!.truncation])),
      limits: { max_bytes: limits.max_bytes ?? null, max_text: maxText, timeout_ms: limits.timeout_ms ?? null },
      env: meta.env ?? null,
      envelope_version: ENVELOPE_VERSION,
      sandbox,
    },
    interrupted: {
      sealed_at: now.toISOString(),
      reason: 'the Airlock process that ran the capture ended before the command did (killed, or the machine stopped); what it had stored is kept',
      owner_pid: meta.owner.pid,
      raw_bytes_seen: seen,
      raw_bytes_stored: Object.fromEntries(STREAMS.map((s) => [s, raw[s]!.size])),
    },
    sanitized: Object.fromEntries(STREAMS.map((s) => [s, texts[s]!.text])),
    reports,
    chunks: chunkLog(rows),
    redaction,
    raw_suspected_secrets: Object.fromEntries(STREAMS.map((s) => [s, policy?.mode === 'on' || policy?.mode === 'off' ? (markers[s]!.count > 0 ? markers[s] : null) : null])),
  };
  const started = meta.audit_started as { seq?: unknown } | undefined;
  const details: AuditDetails = {
    record: running.id,
    ...(typeof started?.seq === 'number' ? { started: started.seq } : {}),
    ...(typeof meta.via === 'string' && /^[a-z]{1,16}$/.test(meta.via) ? { via: meta.via } : {}),
    raw: Object.fromEntries(STREAMS.map((s) => [s, { sha256: raw[s]!.sha256, size: raw[s]!.size }])),
    raw_bytes_seen: seen,
    owner_pid: meta.owner.pid,
  };
  await vault.putRecord(record, { action: 'capture.interrupted', details, audit });
}

/** The log's chunk rows and raw temp files (rows that do not parse are skipped). */
async function readRows(running: RunningHandle): Promise<{ rows: ChunkRowLike[]; rawFiles: Partial<Record<StreamName, string | null>> }> {
  const rows: ChunkRowLike[] = [];
  let rawFiles: Partial<Record<StreamName, string | null>> = {};
  for (let at = 0; ; ) {
    const read = await running.readLog(at);
    for (const r of read.rows) {
      const row = parseRunningRow(r);
      if (row?.[0] === 'raw') rawFiles = row[1];
      else if (row?.[0] === 'c') rows.push(row.slice(1) as unknown as ChunkRowLike);
    }
    if (read.next === at) break;
    at = read.next;
  }
  return { rows, rawFiles };
}

/** A chunk row of the log without its tag: the record's eight fields, then out_offset, out_length, redraw. */
type ChunkRowLike = [number, number, StreamName, number, number, number, number, number, number, number, 0 | 1];

/** Raw bytes the collector had received per stream (what the chunk log names), whatever reached the disk. */
function rawSeen(rows: readonly ChunkRowLike[]): Record<StreamName, number> {
  const seen: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  for (const r of rows) seen[r[2]] = Math.max(seen[r[2]], r[3] + r[4]);
  return seen;
}

/** The record's chunk log from the running log's rows (at most MAX_CHUNK_ROWS). */
function chunkLog(rows: readonly ChunkRowLike[]): ChunkLogJson {
  const kept = rows.slice(0, MAX_CHUNK_ROWS);
  const last = rows.length > 0 ? rows[rows.length - 1][1] + 1 : 0;
  return {
    fields: CHUNK_FIELDS,
    rows: kept.map((r) => r.slice(0, 8) as unknown as ChunkRow),
    count: last,
    coalesced: rows.some((r) => r[0] !== r[1]),
    complete: kept.length === rows.length,
    omitted_from_seq: kept.length === rows.length ? null : rows[kept.length][0],
  };
}

/**
 * A stream's stored text, read from its running file in pieces: through a Sanitizer again (the
 * file is Airlock's own sanitized text, which passes unchanged; whatever a power loss left in it
 * cannot reach a reader as anything else), into the record's --max-text window, with the
 * redaction markers counted by rule (every U+27E6 in redacted text opens one of Airlock's).
 */
async function storedText(running: RunningHandle, stream: StreamName, maxText: number): Promise<{ window: WindowedText; markers: { count: number; rules: Record<string, number> } }> {
  const size = await running.textSize(stream);
  const sanitizer = new Sanitizer({ reuseOutputBuffer: true });
  const window = new TextWindow(maxText);
  const counter = new MarkerCounter();
  let carry = new Uint8Array(0);
  const put = (text: Uint8Array): void => {
    window.push(text);
    counter.push(text);
  };
  for (let at = 0; at < size; at += READ_BYTES) {
    const piece = await running.readText(stream, at, Math.min(READ_BYTES, size - at));
    if (piece.length === 0) break;
    const bytes = carry.length === 0 ? piece : Buffer.concat([carry, piece]);
    // A character cut by the end of a read is kept for the next one; one cut by the end of the file is dropped.
    const whole = completeUtf8Prefix(bytes);
    put(sanitizer.write(bytes.subarray(0, whole)));
    carry = bytes.slice(whole);
  }
  put(sanitizer.end());
  counter.end();
  return { window: window.finish(), markers: { count: counter.count, rules: Object.fromEntries([...counter.rules].sort(([a], [b]) => (a < b ? -1 : 1))) } };
}

const CLOSE = Buffer.from(MARKER_CLOSE, 'utf8');
const PREFIX = Buffer.from(`${MARKER_OPEN}redacted:`, 'utf8');
/** Longest marker looked for (a rule id is short). */
const MAX_MARKER = PREFIX.length + 64 + CLOSE.length;

/** Counts `⟦redacted:RULE⟧` markers in text that arrives in pieces (a marker may be cut between two). */
class MarkerCounter {
  count = 0;
  readonly rules = new Map<string, number>();
  private tail = Buffer.alloc(0);

  push(text: Uint8Array): void {
    const bytes = Buffer.concat([this.tail, text]);
    let pos = 0;
    let open = -1;
    for (let i = bytes.indexOf(PREFIX, pos); i >= 0; i = bytes.indexOf(PREFIX, pos)) {
      const close = bytes.indexOf(CLOSE, i + PREFIX.length);
      if (close < 0 || close - i > MAX_MARKER) {
        if (close < 0 && bytes.length - i <= MAX_MARKER) open = i;
        pos = open >= 0 ? bytes.length : i + 1;
        if (open >= 0) break;
        continue;
      }
      const rule = bytes.toString('utf8', i + PREFIX.length, close);
      if (/^[a-z0-9-]{1,64}$/.test(rule)) {
        this.count++;
        this.rules.set(rule, (this.rules.get(rule) ?? 0) + 1);
      }
      pos = close + CLOSE.length;
    }
    // Kept for the next piece: a marker begun at the end, or what could be the start of one.
    const keepFrom = open >= 0 ? open : Math.max(pos, bytes.length - (PREFIX.length - 1));
    this.tail = Buffer.from(bytes.subarray(keepFrom));
  }

  end(): void {
    this.tail = Buffer.alloc(0);
  }
}

