import { ChunkLog, type ChunkLogJson, type StreamName } from '../../capture/chunk-log';
import { StreamCapture, type StreamResult } from '../../capture/stream-capture';
import type { Vault } from '../../vault';

/** One piece of an imported transcript, in the order it was produced. */
export interface IngestEvent {
  readonly stream: string;
  readonly bytes: Uint8Array;
  /** Milliseconds since the start, when the source has timing (script -t, asciicast, captures). */
  readonly tMs?: number;
}

/** What ingesting produced, per stream, ready for a record. */
export interface IngestResult {
  readonly streams: readonly StreamResult[];
  readonly chunks: ChunkLogJson | null;
  /**
   * Releases the vault's retention lock, taken just before the raw writers commit: call it once
   * the record is written (a concurrent prune cannot delete deduplicated bytes in between).
   */
  readonly release: () => Promise<void>;
}

/** Sanitized text kept in an imported record (the viewer reads the raw artifact itself). */
export const IMPORT_MAX_TEXT = 256 * 1024;

/**
 * Streams events into the vault: every stream's bytes go to its own RawWriter and its own
 * Sanitizer (as a capture does), in bounded memory. With `timed`, a chunk log like a capture's
 * records each event (stream, offsets, text offsets, time); only `stdout`/`stderr` can be logged.
 */
export async function ingest(vault: Vault, streamNames: readonly string[], events: AsyncIterable<IngestEvent>, timed: boolean): Promise<IngestResult> {
  const captures = new Map<string, StreamCapture>();
  for (const name of streamNames) captures.set(name, new StreamCapture(name as StreamName, vault.createRawWriter(), {}, IMPORT_MAX_TEXT));
  const log = timed ? new ChunkLog() : null;
  try {
    for await (const ev of events) {
      const sc = captures.get(ev.stream);
      if (!sc) throw new Error(`internal: no stream ${ev.stream}`);
      if (ev.bytes.length === 0) continue;
      const offset = sc.bytes;
      const textOffset = sc.textOffset;
      const { textLength, wait } = sc.push(ev.bytes);
      if (log && (ev.stream === 'stdout' || ev.stream === 'stderr')) log.add(ev.stream, offset, ev.bytes.length, textOffset, textLength, Math.max(0, Math.round(ev.tMs ?? 0)));
      if (wait) await wait;
    }
    const release = await vault.holdRetentionLock();
    const streams: StreamResult[] = [];
    try {
      for (const sc of captures.values()) streams.push(await sc.finish(true));
    } catch (err) {
      await release();
      throw err;
    }
    return { streams, chunks: log ? log.toJSON() : null, release };
  } catch (err) {
    for (const sc of captures.values()) await sc.abort().catch(() => undefined);
    throw err;
  }
}

/** The record fields every import shares: raw refs, sanitized text, reports. */
export function streamFields(result: IngestResult): { raw: Record<string, { sha256: string; size: number }>; sanitized: Record<string, string>; reports: Record<string, unknown>; text_truncated: Record<string, unknown> } {
  const raw: Record<string, { sha256: string; size: number }> = {};
  const sanitized: Record<string, string> = {};
  const reports: Record<string, unknown> = {};
  const textTruncated: Record<string, unknown> = {};
  for (const s of result.streams) {
    raw[s.name] = { sha256: s.raw.sha256, size: s.raw.size };
    sanitized[s.name] = s.text.text;
    reports[s.name] = s.report;
    textTruncated[s.name] = s.text.truncation;
  }
  return { raw, sanitized, reports, text_truncated: textTruncated };
}
