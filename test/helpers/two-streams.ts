// capture's text pipeline for stdout and stderr without the vault or a child: each stream's own
// Sanitizer, and SharedTerminal deciding which chunks' text is withheld (as app/capture/capture.ts).
import type { StreamName } from '../../app/capture/chunk-log';
import { SharedTerminal } from '../../app/capture/shared-terminal';
import { Sanitizer, type RemovalReport, type SanitizerOptions } from '../../shared/sanitize';
import { bytes, decodeStrict } from './record';

/** One chunk as it arrived, of one stream. */
export interface Chunk { readonly stream: StreamName; readonly bytes: Uint8Array; /** When it was read (ms); without it, chunks are taken as far apart. */ readonly tMs?: number }

/** What capture releases of each stream's text, with each stream's report. */
export function captureTexts(chunks: readonly Chunk[], options: SanitizerOptions = {}): Record<StreamName, string> & { reports: Record<StreamName, RemovalReport> } {
  const sanitizers = { stdout: new Sanitizer(options), stderr: new Sanitizer(options) };
  const streams = (['stdout', 'stderr'] as const).map((name) => ({ name, get atRest() { return sanitizers[name].parserAtRest; }, get sequenceSpans() { return sanitizers[name].sequenceSpans; } }));
  const terminal = new SharedTerminal(streams, options);
  const text: Record<StreamName, Uint8Array[]> = { stdout: [], stderr: [] };
  chunks.forEach((c, i) => {
    const s = sanitizers[c.stream];
    const ahead = chunks.slice(i + 1).map((a) => ({ stream: a.stream, bytes: a.bytes, tMs: a.tMs ?? Infinity }));
    s.withholdText = terminal.before(c.stream, c.bytes, c.tMs === undefined ? undefined : { tMs: c.tMs, ahead });
    text[c.stream].push(s.write(c.bytes));
    s.withholdText = false;
    terminal.after(c.stream, c.bytes, c.tMs);
  });
  for (const name of ['stdout', 'stderr'] as const) text[name].push(sanitizers[name].end());
  return {
    stdout: decodeStrict(bytes(...text.stdout)),
    stderr: decodeStrict(bytes(...text.stderr)),
    reports: { stdout: sanitizers.stdout.getReport(), stderr: sanitizers.stderr.getReport() },
  };
}
