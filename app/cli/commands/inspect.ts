import { Sanitizer, type RemovalReport } from '../../../shared/sanitize';
import { wrapLine } from '../../terminal/fit';
import { sha256Digest } from '../sha256';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { parseFlags, type FlagSpec } from '../flags';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, stdoutIsTerminal, terminalColumns, UsageError, type CliIo, type Command } from '../command';
import { readSource } from '../byte-source';
import { openArtifact } from '../inspect/artifact';
import { legend, paintCell, wantsColor } from '../inspect/paint';
import { ByteOutput } from '../inspect/bytes-out';
import { Dump, FEED } from '../inspect/dump';
import { DEFAULT_MAX_SPANS, JsonSpans } from '../inspect/json-spans';
import { formatReportSummary } from '../inspect/summary';
import { parseByteCount } from '../size';
import { StdoutWriter } from '../stdio';

const USAGE = `Usage: airlock inspect FILE|-|restricted:sha256:HEX [--vault DIR] [--offset N] [--length N] [--width N]
                       [--color auto|always|never] [--summary-only] [--json [--max-spans N]]

A safe byte viewer: an annotated hex/caret dump of FILE (or stdin for -, or a raw artifact of the
vault by its reference), then a summary of what the sanitizer would remove. Every byte is shown as
notation; nothing reaches the terminal raw. Opening a vault artifact appends a 'raw.opened' entry
(who, digest, range) to the vault's audit log first; without that entry nothing is opened.
  --offset N, --length N   show only this byte range (decimal, 0x hex, or K/M/G; the whole input is
                           still parsed: spans crossing the range are whole, the summary and sha256
                           are the file's). An offset at or past the end is an error; a length
                           past the end shows what there is
  --width N                bytes per row (default 16)
  --color MODE             auto (default: colour only on a TTY without NO_COLOR), always, never;
                           a span is coloured over its whole extent, a character over all its
                           bytes, with a legend above the dump
  --summary-only           print the summary without the dump
  --json                   print the summary as one JSON object (implies --summary-only), with the
                           spans overlapping the range, one a line (offset, length, class, meaning,
                           flags), in the order the parser completed them
  --max-spans N            (--json) list at most N spans (default 10000); spans_total counts all
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
  '--max-spans': 'value',
};

/** Bytes per read. */
const READ_PAGE = 1 << 20;


/**
 * An --offset at or past the end of an input of `size` bytes (null: not known yet) shows nothing:
 * that is an error, not an empty dump. (An empty input with no --offset is no error.)
 */
function checkOffset(offset: number, size: number | null): void {
  if (size !== null && offset >= size && (offset > 0 || size > 0)) {
    throw new CliError(`--offset ${offset} is at or past the end of the input (${size} bytes): nothing to show`);
  }
}

/** The size of a regular file; null for stdin, a pipe or a device (their end comes when it comes). */
function regularFileSize(path: string, io: CliIo): number | null {
  if (path === '-') return null;
  try {
    const st = statSync(resolve(io.cwd, path));
    return st.isFile() ? st.size : null;
  } catch {
    return null; // reading it says why
  }
}

/** `--max-spans N`: a whole number of spans (0: count them, list none). */
function spanCount(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--max-spans needs a whole number of spans, like 100000, not '${terminalSafeLine(value.slice(0, 40))}'`);
  return Number(value);
}

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
    if (values['--max-spans'] !== undefined && !json) throw new UsageError('--max-spans goes with --json');
    const maxSpans = values['--max-spans'] === undefined ? DEFAULT_MAX_SPANS : spanCount(values['--max-spans']);
    const dump = !flags.has('--summary-only') && !json;
    const color = !json && wantsColor(colorMode, stdoutIsTerminal(io), io.env);
    const columns = terminalColumns(io) ?? Infinity;
    const note = (text: string): string => (color ? paintCell(text, 'note') : text);
    /** One of Airlock's own lines, cut to the terminal with `prefix+` on further rows. */
    const own = (line: string, prefix: string): string[] => wrapLine(line, columns, `${prefix}+ `);
    const windowEnd = offset + length;

    const { path, shown } = await openArtifact(positionals[0], { offset, length, dump }, values['--vault'], io);
    // A file's size is known before anything is written; stdin's only at its end (below).
    if (values['--offset'] !== undefined) checkOffset(offset, regularFileSize(path, io));
    const out = new ByteOutput(new StdoutWriter(io));
    // The dump keeps only the spans it can show: none for a summary, those overlapping a range.
    const dumper = dump ? new Dump(out, { offset, windowEnd, width, color, columns }) : undefined;
    const listed = json ? new JsonSpans(out, offset, windowEnd, maxSpans) : undefined;
    // The text is not used here: a reused output buffer spares a copy per page.
    const sanitizer = new Sanitizer({ digest: await sha256Digest(), spanLog: dumper?.spans ?? listed?.log, reuseOutputBuffer: true });
    if (dumper !== undefined) dumper.meanings = sanitizer;
    if (listed !== undefined) {
      listed.meanings = sanitizer;
      out.text(`{\n  "source": ${terminalSafeJson(shown)},\n  "spans": [`);
    } else if (!json) {
      const header = [...own(`airlock inspect: ${terminalSafeLine(shown)}`, 'airlock inspect:')];
      if (dump && color) header.push(...legend(columns));
      out.text(`${header.map((l, i) => (i === 0 ? `${note('airlock inspect:')}${l.slice('airlock inspect:'.length)}` : l)).join('\n')}\n`);
    }

    let at = 0;
    // Pages are read into one buffer: the dump copies what it keeps, the sanitizer keeps nothing.
    for await (const page of readSource(path, io, READ_PAGE, true)) {
      if (listed !== undefined) {
        // A piece at a time, written out as it fills: a page of a span per byte is a lot of JSON.
        for (let i = 0; i < page.length; i += FEED) {
          sanitizer.write(page.subarray(i, i + FEED));
          if (out.full) await out.flush();
        }
      } else if (dumper === undefined) {
        sanitizer.write(page);
      } else {
        for (let i = 0; i < page.length; i += FEED) {
          const chunk = page.subarray(i, i + FEED);
          sanitizer.write(chunk);
          dumper.append(chunk);
          await dumper.advance(false);
        }
        // A short page is a slow source (a pipe): what is settled goes out now, not at 1 MiB.
        if (page.length < READ_PAGE) await out.flush();
      }
      at += page.length;
    }
    sanitizer.end();
    if (values['--offset'] !== undefined) checkOffset(offset, at);
    // The whole input was parsed, so the summary and digest describe all of it, not the range.
    const report: RemovalReport = sanitizer.getReport();
    if (listed !== undefined) {
      listed.drain();
      const rest = terminalSafeJson({ spans_listed: listed.listed, spans_total: listed.total, bytes: at, sha256: report.sha256 ?? null, report }, 2);
      out.text(`${listed.listed > 0 ? '\n  ' : ''}],\n  ${rest.slice('{\n  '.length)}\n`);
      await out.flush();
      return 0;
    }
    if (dumper !== undefined) await dumper.advance(true);
    for (const line of formatReportSummary(report)) {
      for (const l of line.startsWith('  ') ? own(line, '         ') : own(`${note('summary:')} ${line}`, 'summary:')) out.text(`${l}\n`);
    }
    await out.flush();
    return 0;
  },
};
