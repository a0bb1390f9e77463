import { formatHexRows } from '../../../shared/hex';
import type { SpanClass } from '../../../shared/parser';
import { Sanitizer } from '../../../shared/sanitize';
import { wrapLine } from '../../node/fit';
import { sha256Digest } from '../../node/sha256';
import { terminalSafeJson, terminalSafeLine } from '../../node/terminal-safe';
import { parseFlags, type FlagSpec } from '../flags';
import { terminalColumns, UsageError, type Command } from '../command';
import { readSource } from '../byte-source';
import { openArtifact } from '../inspect/artifact';
import { legend, paintCell, wantsColor } from '../inspect/paint';
import { formatRow } from '../inspect/row-text';
import { className, flagLabel, SpanQueue, type SpanGroup } from '../inspect/span-queue';
import { formatReportSummary } from '../inspect/summary';
import { parseByteCount } from '../size';
import { writeAll } from '../write';

const USAGE = `Usage: airlock inspect FILE|-|restricted:sha256:HEX [--vault DIR] [--offset N] [--length N] [--width N]
                       [--color auto|always|never] [--summary-only] [--json]

A safe byte viewer: an annotated hex/caret dump of FILE (or stdin for -, or a raw artifact of the
vault by its reference), then a summary of what the sanitizer would remove. Every byte is shown as
notation; nothing reaches the terminal raw. Opening a vault artifact appends a 'raw.opened' entry
(who, digest, range) to the vault's audit log first; without that entry nothing is opened.
  --offset N, --length N   show only this byte range (decimal, 0x hex, or K/M/G; the whole input is
                           still parsed: spans crossing the range are whole, the summary and sha256
                           are the file's)
  --width N                bytes per row (default 16)
  --color MODE             auto (default: colour only on a TTY without NO_COLOR), always, never;
                           a span is coloured over its whole extent, with a legend above the dump
  --summary-only           print the summary without the dump
  --json                   print the summary as one JSON object (implies --summary-only)
  --vault DIR              the vault of a restricted:sha256: reference (default as for 'airlock vault')

On a terminal, a row wider than the terminal continues on rows that begin with '+' under the
offset column. Caret column: ^@..^_ C0 controls (^[ ESC, ^M CR, ^J LF), ^? DEL, <CSI> and friends
C1 controls, \\xNN invalid UTF-8, <U+XXXX> invisible or misleading characters, · UTF-8
continuation bytes, <e2?> a character cut by the range, and \\\\ \\^ \\< \\| for the literal
characters \\ ^ < |.`;

const SPEC: FlagSpec = {
  '--offset': 'value',
  '--length': 'value',
  '--width': 'value',
  '--color': 'value',
  '--summary-only': 'flag',
  '--json': 'flag',
  '--vault': 'value',
};

/**
 * Output lines gathered per write. Small batches and small dump pages keep the strings and span
 * groups of a page young, so the scavenger frees them instead of promoting them: with 64 KiB pages
 * and 2048-line writes a full dump of 16 MiB of BEL/BS peaked above 140 MB, with these near 90 MB.
 */
const LINES_PER_WRITE = 256;

/** Rows formatted per formatHexRows call. */
const ROWS_PER_BATCH = 256;

/** Digits in the offset column: enough for 4 GiB; longer offsets widen the column. */
const OFFSET_DIGITS = 8;

/**
 * Bytes per read. Small while dumping, so the spans of one page (a span per byte at worst) stay
 * few; large when only the summary or a small range is wanted, where spans outside it are not kept.
 */
const DUMP_PAGE = 4 * 1024;
const SCAN_PAGE = 1 << 20;

/** `airlock inspect`: the forensic byte viewer for terminals. */
export const inspectCommand: Command = {
  name: 'inspect',
  usage: USAGE,
  async run(args, io) {
    const { values, flags, positionals } = parseFlags(args, SPEC);
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE, - for stdin, or a restricted:sha256: reference');
    const offset = values['--offset'] ? parseByteCount('--offset', values['--offset'], { allowZero: true }) : 0;
    const length = values['--length'] ? parseByteCount('--length', values['--length']) : Infinity;
    const width = values['--width'] ? Number(values['--width']) : 16;
    if (!Number.isInteger(width) || width < 1 || width > 256) throw new UsageError('--width must be a whole number from 1 to 256');
    const colorMode = values['--color'] ?? 'auto';
    if (!['auto', 'always', 'never'].includes(colorMode)) throw new UsageError("--color must be 'auto', 'always' or 'never'");
    const json = flags.has('--json');
    const dump = !flags.has('--summary-only') && !json;
    const color = !json && wantsColor(colorMode, Boolean((io.stdout as { isTTY?: boolean }).isTTY), io.env);
    const columns = terminalColumns(io) ?? Infinity;
    const note = (text: string): string => (color ? paintCell(text, 'note') : text);
    /** One of Airlock's own lines, cut to the terminal with `prefix+` on further rows. */
    const own = (line: string, prefix: string): string[] => wrapLine(line, columns, `${prefix}+ `);
    const windowEnd = offset + length;

    const { path, shown } = await openArtifact(positionals[0], { offset, length, dump }, values['--vault'], io);
    const queue = new SpanQueue();
    // Only spans the dump can show are kept: none for a summary, those overlapping a range.
    const onSpan = dump
      ? (cls: SpanClass, off: number, len: number, meaning: string, f: number): void => {
          if (off < windowEnd && off + len > offset) queue.add(cls, off, len, meaning, f);
        }
      : undefined;
    // The text is not used here: a reused output buffer spares a copy per page.
    const sanitizer = new Sanitizer({ digest: sha256Digest(), onSpan, reuseOutputBuffer: true });
    if (!json) {
      const header = [...own(`airlock inspect: ${terminalSafeLine(shown)}`, 'airlock inspect:')];
      if (dump && color) header.push(legend());
      await writeAll(io.stdout, `${header.map((l, i) => (i === 0 ? `${note('airlock inspect:')}${l.slice('airlock inspect:'.length)}` : l)).join('\n')}\n`);
    }

    // Spans taken from the queue that may still colour bytes of the rows to come.
    let active: SpanGroup[] = [];
    const spanAt = (at: number): SpanClass | undefined => {
      for (const g of active) if (g.start <= at && at < g.end) return g.cls;
      return undefined;
    };
    const annotatePad = ' '.repeat(OFFSET_DIGITS + 2);
    const take = (before: number, lines: string[]): void => {
      const groups = queue.takeBefore(before);
      if (groups.length === 0) return;
      if (color) for (const group of groups) active.push(group);
      // Spans that start outside the range are not annotated; those of one row are coalesced.
      for (const line of annotations(groups.filter((g) => g.start >= offset && g.start < windowEnd), note)) {
        if (columns === Infinity) lines.push(line);
        else lines.push(...own(line, annotatePad));
      }
    };

    // Rows are formatted one page behind the parser, so a character cut by a page edge decodes
    // with its neighbours and spans ending in the page are known before their row is printed.
    let carry: Uint8Array = new Uint8Array(0);
    let carryAt = 0;
    let context: Uint8Array = new Uint8Array(0);
    /** Formats the rows of `bytes` (at stream offset `at`); returns how many bytes at its end (a partial row) wait for the next call. */
    const emit = async (bytes: Uint8Array, at: number, lookahead: Uint8Array | undefined): Promise<number> => {
      let lines: string[] = [];
      // Written in batches: a page-sized string would cost more in garbage than in formatting.
      const flush = async (): Promise<void> => {
        if (lines.length > 0) await writeAll(io.stdout, `${lines.join('\n')}\n`);
        lines = [];
      };
      const from = Math.max(offset, at);
      let to = Math.min(windowEnd, at + bytes.length);
      let end = at + bytes.length;
      // A page edge never cuts a row: its partial last row waits for the next page.
      if (lookahead !== undefined && from < to && to === end && to < windowEnd) to = end = to - ((to - offset) % width);
      if (from < to) {
        const start = Math.max(from - ((from - offset) % width), at);
        const ctx = start - at >= 3 ? bytes.subarray(start - at - 3, start - at) : Buffer.concat([context, bytes.subarray(0, start - at)]).subarray(-3);
        const after = bytes.subarray(to - at);
        const ahead = after.length >= 3 || lookahead === undefined ? after.subarray(0, 3) : Buffer.concat([after, lookahead]).subarray(0, 3);
        // Rows are made a batch at a time, so few of them live long enough to cost the GC.
        const batch = width * ROWS_PER_BATCH;
        for (let b = start; b < to; b += batch) {
          const e = Math.min(b + batch, to);
          const before = b === start ? ctx : bytes.subarray(b - at - 3, b - at);
          const next = e === to ? ahead : bytes.subarray(e - at, e - at + 3);
          for (const row of formatHexRows(bytes.subarray(b - at, e - at), b, { width, context: before, lookahead: next })) {
            const annotations: string[] = [];
            take(row.offset + row.hex.length, annotations);
            if (color && active.length > 0) active = active.filter((g) => g.end > row.offset);
            lines.push(...formatRow(row, { width, offsetDigits: OFFSET_DIGITS, color, columns, spanAt }));
            lines.push(...annotations);
            if (lines.length >= LINES_PER_WRITE) await flush();
          }
        }
      }
      // Spans that start in this page but outside the shown range leave the queue here, so a
      // small range of a huge file keeps memory flat.
      take(end, lines);
      if (color) active = active.filter((g) => g.end > end);
      // Only the 3 bytes before `end` are kept: copying the page for them would double the work.
      const done = bytes.subarray(0, end - at);
      context = done.length >= 3 ? done.slice(-3) : Buffer.concat([context, done]).subarray(-3);
      await flush();
      return at + bytes.length - end;
    };

    let at = 0;
    for await (const page of readSource(path, io, dump && length === Infinity ? DUMP_PAGE : SCAN_PAGE)) {
      sanitizer.write(page);
      if (dump) {
        const rest = carry.length > 0 ? await emit(carry, carryAt, page.subarray(0, 3)) : 0;
        carry = rest > 0 ? Buffer.concat([carry.subarray(carry.length - rest), page]) : page;
        carryAt = at - rest;
      }
      at += page.length;
    }
    sanitizer.end();
    // The whole input was parsed, so the summary and digest describe all of it, not the range.
    const report = sanitizer.getReport();
    if (json) {
      await writeAll(io.stdout, `${terminalSafeJson({ source: shown, bytes: at, sha256: report.sha256 ?? null, report }, 2)}\n`);
      return 0;
    }
    const tail: string[] = [];
    if (dump) {
      await emit(carry, carryAt, undefined);
      take(Infinity, tail);
      if (offset > 0 && offset >= at) tail.push(...own(`${note('airlock inspect:')} --offset ${offset} is at or past the end of the input (${at} bytes): no rows to show`, 'airlock inspect:'));
    }
    for (const line of formatReportSummary(report)) tail.push(...(line.startsWith('  ') ? own(line, '         ') : own(`${note('summary:')} ${line}`, 'summary:')));
    await writeAll(io.stdout, [...tail, ''].join('\n'));
    return 0;
  },
};

/**
 * The annotation lines for the spans taken for one row, in order of their first offsets. Spans of
 * the same class, meaning and flags with the same length (single spans, not runs) are coalesced
 * into one line that keeps the first span's offset and says how many there are and where:
 * `^ 00001330 c0                1 B each  8x BEL bell  (every 2 B to 0000133e)`,
 * or `(at 00001330 00001333 00001334)` when they are not evenly spaced. A single span keeps the
 * plain line; spans that differ in anything keep lines of their own.
 */
function annotations(groups: SpanGroup[], note: (s: string) => string): string[] {
  if (groups.length === 0) return [];
  if (groups.length === 1) return [annotation(groups[0], note)];
  // Buckets in order of first appearance; few per row (one per distinct kind of span).
  const buckets: SpanGroup[][] = [];
  for (const g of groups) {
    const len = g.end - g.start;
    let bucket: SpanGroup[] | undefined;
    if (g.count === 1) {
      for (const b of buckets) {
        const h = b[0];
        if (h.count === 1 && h.cls === g.cls && h.flags === g.flags && h.end - h.start === len && h.meaning === g.meaning) {
          bucket = b;
          break;
        }
      }
    }
    if (bucket) bucket.push(g);
    else buckets.push([g]);
  }
  return buckets.map((b) => (b.length === 1 ? annotation(b[0], note) : coalesced(b, note)));
}

/** One annotation line under the row where the span starts. */
function annotation(g: SpanGroup, note: (s: string) => string): string {
  const times = g.count > 1 ? `${g.count}x ` : '';
  const flags = flagLabel(g.flags);
  const pad = ' '.repeat(OFFSET_DIGITS + 2);
  return `${pad}${note('^')} ${hexOffset(g.start)} ${className(g.cls).padEnd(12)} ${String(g.end - g.start).padStart(6)} B  ${times}${g.meaning}${flags ? ` ${flags}` : ''}`;
}

/** One line for several equal single spans of a row (at least two), at the first one's offset. */
function coalesced(b: SpanGroup[], note: (s: string) => string): string {
  const g = b[0];
  const flags = flagLabel(g.flags);
  const pad = ' '.repeat(OFFSET_DIGITS + 2);
  const stride = b[1].start - g.start;
  let even = b.length > 2;
  for (let k = 2; even && k < b.length; k++) even = b[k].start - b[k - 1].start === stride;
  const where = even
    ? `every ${stride} B to ${hexOffset(b[b.length - 1].start)}`
    : `at ${b.map((s) => hexOffset(s.start)).join(' ')}`;
  return `${pad}${note('^')} ${hexOffset(g.start)} ${className(g.cls).padEnd(12)} ${String(g.end - g.start).padStart(6)} B each  ${b.length}x ${g.meaning}${flags ? ` ${flags}` : ''}  (${where})`;
}

function hexOffset(at: number): string {
  return at.toString(16).padStart(OFFSET_DIGITS, '0');
}
