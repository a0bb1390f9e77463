import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { newRecordId, type CaptureRecord, type RecordAudit, type Vault } from '../../vault';
import type { ArtifactSourceKind } from '../../../shared/bridge/types';
import { readCast, looksLikeCast } from './asciicast';
import { ingest, streamFields, type IngestEvent, type IngestResult } from './ingest';
import { findTimingFile, looksLikeTypescript, readTiming, scriptEvents, scriptLayout } from './script';

/** Version of the import record layout. */
export const IMPORT_RECORD_VERSION = 1;
/** Largest file "Open file…" imports (the vault's raw store has no cap of its own; 16 GiB). */
export const MAX_IMPORT_BYTES = 16 * 1024 ** 3;

/** The audit log an import appends its `artifact.imported` entry to (committing to the record's bytes). */
export type ImportAudit = RecordAudit;

export interface ImportOptions {
  /** A script(1) timing file (`script -t` / `-T`) for a typescript; default: one found beside it (see findTimingFile). */
  readonly timingPath?: string;
  /** Do not look for a timing file beside a typescript. */
  readonly noTimingSearch?: boolean;
  /** Force a kind instead of detecting it from the name and first bytes. */
  readonly kind?: ArtifactSourceKind;
  readonly now?: Date;
  /** Marks demo-vault records (the audit entry says so). */
  readonly demo?: boolean;
}

/** What an import stored. */
export interface ImportResult {
  readonly record: CaptureRecord;
  readonly source: ArtifactSourceKind;
}

/**
 * Imports an external file into the vault as a restricted artifact plus a record: plain bytes
 * (`.bin`, `.log`, anything else), a script(1) typescript (with its timing file when given) or an
 * asciicast v2/v3 (rebuilt from decoded text: `rebuilt: true`). Kind: `.cast` or an asciicast
 * header → asciicast; `Script started on` → script; otherwise plain bytes. The file must be a
 * regular file (no device, FIFO or directory). Audited as `artifact.imported`.
 */
export async function importFile(vault: Vault, audit: ImportAudit, path: string, options: ImportOptions = {}): Promise<ImportResult> {
  const st = await lstat(path);
  if (!st.isFile()) throw new Error(`${basename(path)} is not a regular file`);
  if (st.size > MAX_IMPORT_BYTES) throw new Error(`${basename(path)} is larger than ${MAX_IMPORT_BYTES} bytes`);
  const head = await readHead(path, 8192);
  const kind = options.kind ?? detectKind(path, head);
  const now = options.now ?? new Date();
  const name = basename(path);
  const fileSha256 = await hashFile(path);
  let result: IngestResult;
  let extra: Record<string, unknown>;
  if (kind === 'asciicast') {
    const cast = await readCast(path);
    result = await ingest(vault, ['stdout'], cast.events, true);
    const { header, stats } = cast;
    extra = {
      rebuilt: true,
      command: header.command ?? undefined,
      exit_code: stats.exitCode,
      metadata: {
        command: header.command,
        title: header.title,
        started_at: header.timestamp !== null ? new Date(header.timestamp * 1000).toISOString() : null,
        duration_ms: Math.round(stats.durationMs),
        exit_code: stats.exitCode,
        asciicast: { version: header.version, cols: header.cols, rows: header.rows, term: header.term, events: stats.events, input_events: stats.input, markers: stats.markers, resizes: stats.resizes, bad_lines: stats.bad },
        rebuilt_note: 'rebuilt from the decoded text of the output events (UTF-8); not the bytes the terminal received',
      },
    };
  } else if (kind === 'script') {
    const layout = await scriptLayout(path, st.size);
    const timingPath = options.timingPath ?? (options.noTimingSearch ? null : await findTimingFile(path));
    const steps = timingPath ? await readTiming(timingPath) : null;
    const stats = { timedBytes: 0 };
    result = await ingest(vault, ['stdout'], scriptEvents(path, layout, steps, stats), steps !== null);
    const sessionBytes = layout.end - layout.start;
    extra = {
      rebuilt: false,
      command: layout.command ?? undefined,
      exit_code: layout.exitCode,
      metadata: {
        command: layout.command,
        started_at: layout.startedAt,
        exit_code: layout.exitCode,
        duration_ms: steps ? Math.round(steps.reduce((a, s) => a + s.delayMs, 0)) : null,
        script: {
          header: layout.headerLine.slice(0, 500),
          footer: layout.footerLine?.slice(0, 500) ?? null,
          header_bytes: layout.start,
          footer_bytes: st.size - layout.end,
          session_bytes: sessionBytes,
          term: layout.term,
          cols: layout.columns,
          rows: layout.lines,
          timing: steps ? { steps: steps.length, timed_bytes: stats.timedBytes, matches: stats.timedBytes === sessionBytes } : null,
          policy: 'the artifact is the session bytes between script(1)\'s own header and footer lines, byte-exact',
        },
      },
    };
  } else {
    result = await ingest(vault, ['file'], fileEvents(path), false);
    extra = { rebuilt: false, exit_code: null, metadata: { file_type: extname(name).slice(1).toLowerCase() || null } };
  }
  const record: CaptureRecord = {
    id: newRecordId(now),
    created_at: now.toISOString(),
    ...streamFields(result),
    kind: 'import',
    source: kind,
    record_version: IMPORT_RECORD_VERSION,
    title: name,
    file: { name, size: st.size, sha256: fileSha256 },
    ...(result.chunks ? { chunks: result.chunks } : {}),
    ...extra,
  };
  try {
    // The record and its `artifact.imported` entry (committing to the record's bytes) go together.
    await vault.putRecord(JSON.parse(JSON.stringify(record)) as CaptureRecord, {
      action: 'artifact.imported',
      audit,
      details: {
        source: kind,
        file_sha256: fileSha256,
        file_size: st.size,
        raw: Object.fromEntries(Object.entries(record.raw).map(([k, v]) => [k, { sha256: v.sha256, size: v.size }])),
        rebuilt: kind === 'asciicast',
        demo: options.demo === true,
      },
    });
  } finally {
    await result.release();
  }
  return { record, source: kind };
}

/** Picks the importer from the extension and the first bytes. */
export function detectKind(path: string, head: Uint8Array): ArtifactSourceKind {
  const ext = extname(path).toLowerCase();
  if (ext === '.cast' || looksLikeCast(head)) return 'asciicast';
  if (looksLikeTypescript(head)) return 'script';
  return 'file';
}

async function* fileEvents(path: string): AsyncGenerator<IngestEvent> {
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) yield { stream: 'file', bytes: chunk };
}

async function readHead(path: string, n: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

async function hashFile(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) h.update(chunk);
  return h.digest('hex');
}
