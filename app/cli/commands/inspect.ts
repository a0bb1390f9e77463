import { Sanitizer, type RemovalReport } from '../../../shared/sanitize';
import { wrapLine } from '../../terminal/fit';
import { sha256Digest } from '../sha256';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { parseFlags, type FlagSpec } from '../flags';
import { stdoutIsTerminal, terminalColumns, UsageError, type Command } from '../command';
import { readSource } from '../byte-source';
import { openArtifact } from '../inspect/artifact';
import { legend, paintCell, wantsColor } from '../inspect/paint';
import { ByteOutput } from '../inspect/bytes-out';
import { Dump, FEED } from '../inspect/dump';
import { formatReportSummary } from '../inspect/summary';
import { parseByteCount } from '../size';
import { StdoutWriter } from '../stdio';

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
                           a span is coloured over its whole extent, a character over all its
                           bytes, with a legend above the dump
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

/** Bytes per read. */
const READ_PAGE = 1 << 20;


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
    const color = !json && wantsColor(colorMode, stdoutIsTerminal(io), io.env);
    const columns = terminalColumns(io) ?? Infinity;
    const note = (text: string): string => (color ? paintCell(text, 'note') : text);
    /** One of Airlock's own lines, cut to the terminal with `prefix+` on further rows. */
    const own = (line: string, prefix: string): string[] => wrapLine(line, columns, `${prefix}+ `);
    const windowEnd = offset + length;

    const { path, shown } = await openArtifact(positionals[0], { offset, length, dump }, values['--vault'], io);
    const out = new ByteOutput(new StdoutWriter(io));
    // The dump keeps only the spans it can show: none for a summary, those overlapping a range.
    const dumper = dump ? new Dump(out, { offset, windowEnd, width, color, columns }) : undefined;
    // The text is not used here: a reused output buffer spares a copy per page.
    const sanitizer = new Sanitizer({ digest: await sha256Digest(), spanLog: dumper?.spans, reuseOutputBuffer: true });
    if (dumper !== undefined) dumper.meanings = sanitizer;
    if (!json) {
      const header = [...own(`airlock inspect: ${terminalSafeLine(shown)}`, 'airlock inspect:')];
      if (dump && color) header.push(...legend(columns));
      out.text(`${header.map((l, i) => (i === 0 ? `${note('airlock inspect:')}${l.slice('airlock inspect:'.length)}` : l)).join('\n')}\n`);
    }

    let at = 0;
    // Pages are read into one buffer: the dump copies what it keeps, the sanitizer keeps nothing.
    for await (const page of readSource(path, io, READ_PAGE, true)) {
      if (dumper === undefined) {
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
    // The whole input was parsed, so the summary and digest describe all of it, not the range.
    const report: RemovalReport = sanitizer.getReport();
    if (json) {
      out.text(`${terminalSafeJson({ source: shown, bytes: at, sha256: report.sha256 ?? null, report }, 2)}\n`);
      await out.flush();
      return 0;
    }
    if (dumper !== undefined) await dumper.advance(true);
    if (dump && offset > 0 && offset >= at) for (const l of own(`${note('airlock inspect:')} --offset ${offset} is at or past the end of the input (${at} bytes): no rows to show`, 'airlock inspect:')) out.text(`${l}\n`);
    for (const line of formatReportSummary(report)) {
      for (const l of line.startsWith('  ') ? own(line, '         ') : own(`${note('summary:')} ${line}`, 'summary:')) out.text(`${l}\n`);
    }
    await out.flush();
    return 0;
  },
};
