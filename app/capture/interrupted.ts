import { constants as fsc } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { CrMode } from '../../shared/sanitize';
import { DEFAULT_POLICY } from '../../shared/redact';
import type { ParserLimits } from '../../shared/parser';
import { AuditLog, type AuditDetails } from '../audit';
import type { CaptureRecord, RawCommit, RawWriter, RunningEntry, RunningHandle, Vault } from '../vault';
import { loadRedaction } from '../redact/policy';
import { DEFAULT_MAX_TEXT, MAX_TEXT_CEILING } from './capture';
import { SharedTerminal, type ReadChunk } from './shared-terminal';
import { StreamCapture, type StreamResult } from './stream-capture';
import { CAPTURE_RECORD_VERSION } from './record';
import { CHUNK_FIELDS, MAX_CHUNK_ROWS, STREAMS, type ChunkLogJson, type ChunkRow, type StreamName } from './chunk-log';
import { parseRunningRow } from './running-record';
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

/**
 * Seals every running capture whose owner is gone (Airlock was killed, the machine lost power) as
 * a record marked `interrupted`, made from what it had stored, with a `capture.interrupted` audit
 * entry committing to it; removes running directories whose record is already sealed, and starts
 * that never finished. Runs at the start of every capture, every `airlock vault` command
 * (app/cli/vault/seal-leftovers.ts) and MCP `wait`, under the vault's retention lock (two
 * sealers, or a prune, cannot take the same raw temp file). Running captures of live processes,
 * and of other hosts, are left alone.
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
  const maxText = Number.isSafeInteger(limits.max_text) && (limits.max_text as number) > 0 ? Math.min(limits.max_text as number, MAX_TEXT_CEILING) : DEFAULT_MAX_TEXT;
  const policyInfo = meta.redaction as { mode?: unknown } | undefined;
  const mode = policyInfo?.mode === 'off' ? 'off' : 'on';
  // The vault's policy as the capture read it at its start; a policy file broken since gets the built-in rules.
  const redaction = await loadRedaction(vault.root, mode).catch(() => ({ policy: DEFAULT_POLICY, info: policyInfo ?? null }));

  // Each stream's raw bytes that reached the disk are stored, then go through the capture's own
  // pipeline (StreamCapture: sanitizer, redaction stage, --max-text window) in the order the chunk
  // log says they arrived, under the same rule for two streams on one terminal (SharedTerminal):
  // the record is what a capture of exactly those bytes stores, its unfinished last line included.
  const adopted = {} as Record<StreamName, RawCommit>;
  for (const stream of STREAMS) adopted[stream] = await vault.adoptRawTemp(rawFiles[stream] ?? null);
  const captures = Object.fromEntries(STREAMS.map((stream) => {
    const writer: RawWriter = { size: 0, write: () => undefined, commit: async () => adopted[stream], abort: async () => undefined };
    return [stream, new StreamCapture(stream, writer, { cr, limits: parserLimits }, maxText, { policy: redaction.policy, replace: mode === 'on' })];
  })) as Record<StreamName, StreamCapture>;
  await replayInArrivalOrder(vault, rows, adopted, captures, { cr, limits: parserLimits });
  const results = {} as Record<StreamName, StreamResult>;
  for (const stream of STREAMS) results[stream] = await captures[stream].finish(false);
  const seen = rawSeen(rows);
  const lastT = rows.reduce((t, r) => Math.max(t, r[7]), 0);
  const now = new Date();
  const stored = Object.fromEntries(STREAMS.map((s) => [s, results[s].raw.size]));
  const secrets = (s: StreamName): { count: number; rules: Record<string, number> } | null => (results[s].redaction.count > 0 ? { count: results[s].redaction.count, rules: results[s].redaction.rules } : null);
  const record: CaptureRecord = {
    id: running.id,
    created_at: now.toISOString(),
    raw: Object.fromEntries(STREAMS.map((s) => [s, { sha256: results[s].raw.sha256, size: results[s].raw.size }])),
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
      bytes: stored,
      raw_artifacts: Object.fromEntries(STREAMS.map((s) => [s, results[s].raw.ref])),
      text_truncated: Object.fromEntries(STREAMS.map((s) => [s, results[s].text.truncation])),
      limits: { max_bytes: limits.max_bytes ?? null, max_text: maxText, timeout_ms: limits.timeout_ms ?? null },
      env: meta.env ?? null,
      envelope_version: ENVELOPE_VERSION,
      sandbox: meta.sandbox ?? null,
    },
    interrupted: {
      sealed_at: now.toISOString(),
      reason: 'the Airlock process that ran the capture ended before the command did (killed, or the machine stopped); what it had stored is kept',
      owner_pid: meta.owner.pid,
      raw_bytes_seen: seen,
      raw_bytes_stored: stored,
    },
    sanitized: Object.fromEntries(STREAMS.map((s) => [s, results[s].text.text])),
    reports: Object.fromEntries(STREAMS.map((s) => [s, results[s].report])),
    chunks: chunkLog(rows),
    redaction: { policy: redaction.info, ...Object.fromEntries(STREAMS.map((s) => [s, results[s].redaction])) },
    raw_suspected_secrets: Object.fromEntries(STREAMS.map((s) => [s, secrets(s)])),
  };
  const started = meta.audit_started as { seq?: unknown } | undefined;
  const details: AuditDetails = {
    record: running.id,
    ...(typeof started?.seq === 'number' ? { started: started.seq } : {}),
    ...(typeof meta.via === 'string' && /^[a-z]{1,16}$/.test(meta.via) ? { via: meta.via } : {}),
    raw: Object.fromEntries(STREAMS.map((s) => [s, { sha256: results[s].raw.sha256, size: results[s].raw.size }])),
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

/** Largest read while replaying (a logged chunk longer than this is read in pieces). */
const REPLAY_READ = 1 << 20;

/**
 * Feeds each stream's stored raw bytes to its StreamCapture in the order the chunk log gives, with
 * SharedTerminal deciding which chunks' text is withheld, as the capture would have; the bytes
 * stored past the log's last row of a stream (written, not yet logged when Airlock died) follow,
 * stdout's first.
 */
async function replayInArrivalOrder(vault: Vault, rows: readonly ChunkRowLike[], adopted: Record<StreamName, RawCommit>, captures: Record<StreamName, StreamCapture>, sanitizer: { cr: CrMode; limits: Partial<ParserLimits> }): Promise<void> {
  const terminal = new SharedTerminal(STREAMS.map((s) => captures[s]), sanitizer);
  const files = {} as Record<StreamName, FileHandle | null>;
  const fed: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  try {
    for (const s of STREAMS) files[s] = adopted[s].size > 0 ? await open(vault.rawPath(adopted[s].sha256), fsc.O_RDONLY | fsc.O_NOFOLLOW) : null;
    /** Rows after `i`, as SharedTerminal looks ahead at them (their bytes are not read yet). */
    function* ahead(i: number): Generator<ReadChunk> {
      for (let k = i + 1; k < rows.length; k++) yield { stream: rows[k][2], bytes: null, tMs: rows[k][7] };
    }
    /** Feeds `stream` up to `end`: the bytes of row `row`, or (null) those stored past the log's rows, which have no time. */
    const feed = async (stream: StreamName, end: number, row: number | null): Promise<void> => {
      const timing = row === null ? undefined : { tMs: rows[row][7], ahead: ahead(row) };
      const file = files[stream];
      const stop = Math.min(end, adopted[stream].size);
      while (file !== null && fed[stream] < stop) {
        const bytes = new Uint8Array(Math.min(REPLAY_READ, stop - fed[stream]));
        const { bytesRead } = await file.read(bytes, 0, bytes.length, fed[stream]);
        if (bytesRead === 0) throw new Error(`the stored ${stream} of an interrupted capture ended early`);
        const chunk = bytes.subarray(0, bytesRead);
        captures[stream].sanitize(chunk, terminal.before(stream, chunk, timing));
        terminal.after(stream, chunk, timing?.tMs);
        fed[stream] += bytesRead;
      }
    };
    for (let i = 0; i < rows.length; i++) await feed(rows[i][2], rows[i][3] + rows[i][4], i);
    for (const s of STREAMS) await feed(s, Infinity, null);
  } finally {
    for (const s of STREAMS) await files[s]?.close();
  }
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
