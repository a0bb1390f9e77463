import { formatHexRows, formatRowText } from '../../../shared/hex';
import { Sanitizer } from '../../../shared/sanitize';
import { sha256Digest } from '../../node/sha256';
import { terminalSafeLine } from '../../node/terminal-safe';
import { parseFlags } from '../flags';
import { UsageError, type Command } from '../command';
import { readSource } from '../byte-source';
import { paintCell, wantsColor } from '../inspect/paint';
import { className, flagLabel, SpanQueue, type SpanGroup } from '../inspect/span-queue';
import { formatReportSummary } from '../inspect/summary';
import { parseByteCount } from '../size';
import { writeAll } from '../write';

const USAGE = `Usage: airlock inspect FILE|- [--offset N] [--length N] [--width N] [--color auto|always|never] [--summary-only]

A safe byte viewer: an annotated hex/caret dump of FILE (or stdin for -), then a summary of what
the sanitizer would remove. Every byte is shown as notation; nothing reaches the terminal raw.
  --offset N, --length N   show only this byte range (the whole input is still parsed: spans
                           crossing the range are whole, the summary and sha256 are the file's)
  --width N                bytes per row (default 16)
  --color MODE             auto (default: colour only on a TTY without NO_COLOR), always, never
  --summary-only           print the summary without the dump

Caret column: ^@..^_ C0 controls (^[ ESC, ^M CR, ^J LF), ^? DEL, <CSI> and friends C1 controls,
\\xNN invalid UTF-8, <U+XXXX> invisible or misleading characters, · UTF-8 continuation bytes,
<e2?> a character cut by the range, and \\\\ \\^ \\< for the literal characters \\ ^ <.`;

/** Output lines gathered per write. */
const LINES_PER_WRITE = 2048;

/** Digits in the offset column: enough for 4 GiB; longer offsets widen the column. */
const OFFSET_DIGITS = 8;

/** `airlock inspect`: the forensic byte viewer for terminals. */
export const inspectCommand: Command = {
  name: 'inspect',
  usage: USAGE,
  async run(args, io) {
    const { values, flags, positionals } = parseFlags(args, {
      '--offset': 'value', '--length': 'value', '--width': 'value', '--color': 'value', '--summary-only': 'flag',
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE, or - for stdin');
    const path = positionals[0];
    const offset = values['--offset'] ? parseOffset(values['--offset']) : 0;
    const length = values['--length'] ? parseByteCount('--length', values['--length']) : Infinity;
    const width = values['--width'] ? Number(values['--width']) : 16;
    if (!Number.isInteger(width) || width < 1 || width > 256) throw new UsageError('--width must be a whole number from 1 to 256');
    const colorMode = values['--color'] ?? 'auto';
    if (!['auto', 'always', 'never'].includes(colorMode)) throw new UsageError("--color must be 'auto', 'always' or 'never'");
    const color = wantsColor(colorMode, Boolean((io.stdout as { isTTY?: boolean }).isTTY), io.env);
    const paint = color ? paintCell : undefined;
    const note = (text: string): string => (color ? paintCell(text, 'note') : text);

    const queue = new SpanQueue();
    const sanitizer = new Sanitizer({ digest: sha256Digest(), onSpan: (cls, off, len, meaning, f) => queue.add(cls, off, len, meaning, f) });
    const windowEnd = offset + length;
    const dump = !flags.has('--summary-only');
    await writeAll(io.stdout, `${note('airlock inspect:')} ${terminalSafeLine(path === '-' ? '(stdin)' : path)}\n`);

    // Rows are formatted one page behind the parser, so a character cut by a page edge decodes
    // with its neighbours and spans ending in the page are known before their row is printed.
    let carry: Uint8Array = new Uint8Array(0);
    let carryAt = 0;
    let context: Uint8Array = new Uint8Array(0);
    const emit = async (bytes: Uint8Array, at: number, lookahead: Uint8Array | undefined): Promise<void> => {
      let lines: string[] = [];
      // Written in batches: a page-sized string would cost more in garbage than in formatting.
      const flush = async (): Promise<void> => {
        if (lines.length > 0) await writeAll(io.stdout, `${lines.join('\n')}\n`);
        lines = [];
      };
      const from = Math.max(offset, at);
      const to = Math.min(windowEnd, at + bytes.length);
      if (from < to) {
        const rowStart = from - ((from - offset) % width);
        const start = Math.max(rowStart, at);
        const slice = bytes.subarray(start - at, to - at);
        const ctx = start - at >= 3 ? bytes.subarray(start - at - 3, start - at) : Buffer.concat([context, bytes.subarray(0, start - at)]).subarray(-3);
        const ahead = to - at < bytes.length ? bytes.subarray(to - at, to - at + 3) : lookahead;
        for (const row of formatHexRows(slice, start, { width, context: ctx, lookahead: ahead })) {
          if (dump) lines.push(formatRowText(row, { width, offsetDigits: OFFSET_DIGITS, paint }));
          for (const group of queue.takeBefore(row.offset + row.hex.length)) {
            if (dump && group.start >= offset && group.start < windowEnd) lines.push(annotation(group, note));
          }
          if (lines.length >= LINES_PER_WRITE) await flush();
        }
      }
      // Spans that start in this page but outside the shown range leave the queue here, so a
      // small range of a huge file keeps memory flat.
      for (const group of queue.takeBefore(at + bytes.length)) {
        if (dump && group.start >= offset && group.start < windowEnd) lines.push(annotation(group, note));
      }
      // Only the last 3 bytes are kept: copying the page for them would double the work.
      context = bytes.length >= 3 ? bytes.slice(-3) : Buffer.concat([context, bytes]).subarray(-3);
      await flush();
    };

    let at = 0;
    for await (const page of readSource(path, io)) {
      sanitizer.write(page);
      if (carry.length > 0) await emit(carry, carryAt, page.subarray(0, 3));
      carry = page;
      carryAt = at;
      at += page.length;
    }
    sanitizer.end();
    await emit(carry, carryAt, undefined);
    const rest = queue.takeBefore(Infinity).filter((g) => dump && g.start >= offset && g.start < windowEnd);
    const tail = rest.map((g) => annotation(g, note));
    if (dump && offset > 0 && offset >= at) tail.push(`${note('airlock inspect:')} --offset ${offset} is at or past the end of the input (${at} bytes): no rows to show`);
    // The whole input was parsed, so the summary and digest describe all of it, not the range.
    const report = sanitizer.getReport();
    const summary = formatReportSummary(report).map((line) => (line.startsWith('  ') ? line : `${note('summary:')} ${line}`));
    await writeAll(io.stdout, [...tail, ...summary, ''].join('\n'));
    return 0;
  },
};

/** One annotation line under the row where the span starts. */
function annotation(g: SpanGroup, note: (s: string) => string): string {
  const times = g.count > 1 ? `${g.count}x ` : '';
  const flags = flagLabel(g.flags);
  const pad = ' '.repeat(OFFSET_DIGITS + 2);
  return `${pad}${note('^')} ${g.start.toString(16).padStart(OFFSET_DIGITS, '0')} ${className(g.cls).padEnd(12)} ${String(g.end - g.start).padStart(6)} B  ${times}${g.meaning}${flags ? ` ${flags}` : ''}`;
}

function parseOffset(value: string): number {
  const n = /^0x[0-9a-f]+$/i.test(value) ? parseInt(value, 16) : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new UsageError(`--offset needs a byte offset (decimal or 0x hex), not '${value.slice(0, 40)}'`);
  return n;
}

