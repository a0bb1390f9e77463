import { createReadStream } from 'node:fs';
import { commandLine, recordField } from '../../vault/display';
import { formatRef, parseRef, type CaptureRecord, type Vault } from '../../vault';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { dangerCounts, rankMeanings } from '../../../shared/parser/danger';
import { Sanitizer } from '../../../shared/sanitize';
import type { RemovalReport } from '../../../shared/sanitize';
import type {
  ArtifactRef, ArtifactSourceKind, ArtifactSummary, RecordSummary, RemovalSummary, VaultInfo,
} from '../../../shared/bridge/types';
import { BridgeError } from '../bridge/errors';

/** Where one artifact lives: its record and stream. */
export interface ArtifactLocation {
  readonly record: CaptureRecord;
  readonly summary: RecordSummary;
  readonly artifact: ArtifactSummary;
  readonly stream: string;
}

/**
 * The vault as the app shows it: records as sanitized summaries, artifacts by reference, removal
 * reports. Nothing here returns a raw byte; every string is sanitized display text.
 */
export class VaultView {
  private byDigest = new Map<string, ArtifactLocation>();
  private summaries: RecordSummary[] = [];
  private loaded = false;
  private readonly reports = new Map<string, RemovalReport>();

  constructor(
    readonly vault: Vault,
    private readonly meta: { demo: boolean; version: string; open?: ArtifactRef | null },
  ) {}

  /** Sets the artifact the app was started on (`airlock open`). */
  setOpen(ref: ArtifactRef | null): void {
    this.meta.open = ref;
  }

  async info(windowId: number): Promise<VaultInfo> {
    await this.ensure();
    return { root: terminalSafeLine(this.vault.root), demo: this.meta.demo, records: this.summaries.length, windowId, version: this.meta.version, open: this.meta.open ?? null };
  }

  /** All records, newest first. */
  async list(): Promise<RecordSummary[]> {
    await this.refresh();
    return this.summaries;
  }

  /** Re-reads the records (after an import). */
  async refresh(): Promise<void> {
    const { records } = await this.vault.listRecords();
    const byDigest = new Map<string, ArtifactLocation>();
    const summaries: RecordSummary[] = [];
    for (const record of records) {
      const summary = await this.summarize(record);
      summaries.push(summary);
      for (const artifact of summary.artifacts) {
        if (!byDigest.has(artifact.sha256)) byDigest.set(artifact.sha256, { record, summary, artifact, stream: artifact.stream });
      }
    }
    summaries.reverse();
    this.byDigest = byDigest;
    this.summaries = summaries;
    this.loaded = true;
  }

  /** The artifact a reference names; 'not-found' when no record holds it. */
  async locate(ref: ArtifactRef): Promise<ArtifactLocation> {
    const { sha256 } = parseRef(ref);
    await this.ensure();
    let loc = this.byDigest.get(sha256);
    if (!loc) {
      await this.refresh();
      loc = this.byDigest.get(sha256);
    }
    if (!loc) throw new BridgeError('not-found', `no artifact ${ref} in this vault`);
    return loc;
  }

  /** The removal report of an artifact: the record's, else computed from the raw bytes (sanitized counts only). */
  async report(ref: ArtifactRef): Promise<RemovalReport> {
    const loc = await this.locate(ref);
    const stored = storedReport(loc.record, loc.stream);
    if (stored) return stored;
    const cached = this.reports.get(loc.artifact.sha256);
    if (cached) return cached;
    if (!loc.artifact.rawAvailable) throw new BridgeError('not-found', `artifact ${ref} has no stored report and its raw bytes were pruned`);
    const report = await reportFromFile(this.vault.rawPath(loc.artifact.sha256));
    this.reports.set(loc.artifact.sha256, report);
    return report;
  }

  private async ensure(): Promise<void> {
    if (!this.loaded) await this.refresh();
  }

  private async summarize(record: CaptureRecord): Promise<RecordSummary> {
    const source = sourceKind(record);
    const artifacts: ArtifactSummary[] = [];
    for (const [stream, raw] of Object.entries(record.raw)) {
      const report = storedReport(record, stream);
      artifacts.push({
        ref: formatRef(raw.sha256),
        sha256: raw.sha256,
        size: raw.size,
        stream,
        removal: removalSummary(report),
        rawAvailable: record.raw_pruned_at === undefined && (await this.vault.hasRaw(raw.sha256)),
      });
    }
    const num = (k: string): number | null => {
      const v = recordField(record, k);
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    };
    const str = (k: string): string | null => {
      const v = recordField(record, k);
      return typeof v === 'string' ? terminalSafeLine(v).slice(0, 500) : null;
    };
    const title = source === 'capture' ? commandLine(record, 200) : (str('title') ?? commandLine(record, 200));
    return {
      id: record.id,
      createdAt: record.created_at,
      source,
      title,
      cwd: str('cwd'),
      exitCode: num('exit_code'),
      signal: str('signal'),
      durationMs: num('duration_ms'),
      rebuilt: recordField(record, 'rebuilt') === true,
      artifacts,
    };
  }
}

function sourceKind(record: CaptureRecord): ArtifactSourceKind {
  const s = record.source;
  if (s === 'file' || s === 'script' || s === 'asciicast') return s;
  return 'capture';
}

/** The report a record keeps for a stream (`reports.<stream>`), if it looks like one. */
function storedReport(record: CaptureRecord, stream: string): RemovalReport | null {
  const reports = record.reports as Record<string, unknown> | undefined;
  const r = reports?.[stream] as RemovalReport | undefined;
  return r && typeof r === 'object' && r.version === 1 && typeof r.meanings === 'object' ? r : null;
}

/** Totals of a report for lists and the prompt. */
export function removalSummary(report: RemovalReport | null): RemovalSummary {
  if (!report) return { removedSpans: 0, removedBytes: 0, top: [], truncated: false, withheldToEnd: false, ambiguous: 0, danger: {} };
  // Most dangerous first (a build log's one clipboard write before its thousands of colour codes).
  const top = rankMeanings(report.meanings)
    .slice(0, 5)
    .map(({ key, count }) => ({ key: terminalSafeLine(key), count }));
  const danger = dangerCounts(report.meanings);
  // Reports stored before the one-reading rule lack these fields: read them defensively.
  const withheld = report.withheld_to_end === true;
  const amb = report.ambiguous as { count?: unknown } | undefined;
  const ambiguous = typeof amb?.count === 'number' && Number.isSafeInteger(amb.count) && amb.count >= 0 ? amb.count : 0;
  return { removedSpans: report.removed_spans, removedBytes: report.removed_bytes, top, truncated: report.truncated, withheldToEnd: withheld, ambiguous, danger };
}

/** Sanitizes a file to get its report (the text is discarded). */
export async function reportFromFile(path: string): Promise<RemovalReport> {
  const s = new Sanitizer({ reuseOutputBuffer: true });
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) s.write(chunk);
  s.end();
  return s.getReport();
}
