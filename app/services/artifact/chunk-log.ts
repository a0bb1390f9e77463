// A capture's chunk log (record.chunks, see app/capture/chunk-log.ts) as the viewer shows it:
// the collector's sequence numbers and per-stream offsets, never an order nobody observed.
import type { ChunkLogView, ChunkRowView } from '../../../shared/bridge/types';
import type { CaptureRecord } from '../../vault';

export function chunkLogView(record: CaptureRecord): ChunkLogView {
  const log = (record.chunks ?? record.chunk_log) as { rows?: unknown; count?: unknown; coalesced?: unknown; complete?: unknown } | undefined;
  if (!log || !Array.isArray(log.rows)) return { rows: [], total: 0, coalesced: false, complete: false };
  const rows: ChunkRowView[] = [];
  for (const row of log.rows as unknown[]) {
    if (!Array.isArray(row) || row.length < 8) continue;
    const [seq, seqEnd, stream, offset, length, textOffset, textLength, tMs] = row as unknown[];
    const nums = [seq, seqEnd, offset, length, textOffset, textLength, tMs];
    if (!nums.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0)) continue;
    if (stream !== 'stdout' && stream !== 'stderr') continue;
    rows.push({
      seq: seq as number, seqEnd: seqEnd as number, stream, offset: offset as number, length: length as number,
      textOffset: textOffset as number, textLength: textLength as number, tMs: tMs as number,
    });
  }
  const total = typeof log.count === 'number' && Number.isSafeInteger(log.count) ? log.count : rows.length;
  return { rows, total, coalesced: log.coalesced === true, complete: log.complete === true && rows.length === (log.rows as unknown[]).length };
}
