import { gutterRows } from '../../terminal/gutter';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { reconstructScreen, SCREEN_DEFAULTS, type ScreenFinding } from '../../services/screen/engine';
import { readSource } from '../byte-source';
import { CliError, terminalColumns, UsageError, writeOwnLines, type Command } from '../command';
import { parseFlags, type FlagSpec } from '../flags';
import { openArtifact } from '../inspect/artifact';
import { parseByteCount } from '../size';

const USAGE = `Usage: airlock screen FILE|-|restricted:sha256:HEX [--cols N] [--rows N] [--max-bytes N] [--json] [--vault DIR]

What a person looking at a terminal saw, against what the bytes say. Runs the bytes through a
terminal emulator (xterm.js, headless) and lists the raw byte ranges of text that was printed but
is not visible at the end, and how it was hidden:
  overwritten   printed over (CR or cursor moves, then more text)
  erased        removed by an erasing control (EL, ED, ECH, DCH, DL, IL, SU/SD, ICH, RIS, leaving
                the alternate screen); 'by' is the control's offset
  concealed     still there, drawn invisible (SGR 8)
  same_colour   still there, foreground and background set to the same colour
The sanitized text (airlock sanitize) keeps all of it; this says which bytes hid what. A line feed
is taken to have reached the screen as CR LF (a tty's output processing). Opening a vault artifact
appends a 'raw.opened' entry to the vault's audit log first.
  --cols N, --rows N   the terminal's size (default ${SCREEN_DEFAULTS.cols}x${SCREEN_DEFAULTS.rows}): what is hidden depends on it
  --max-bytes N        refuse inputs larger than N (default 16M; suffixes K, M, G): the engine holds
                       the input and ~40 bytes per printed character, and runs ~1 MB/s
  --json               one JSON object: source, bytes, terminal, counts, findings (kind, offset,
                       length, text, line, column, by), screen (the last screen's lines)
  --vault DIR          the vault of a restricted:sha256: reference`;

const SPEC: FlagSpec = {
  '--cols': 'value',
  '--rows': 'value',
  '--max-bytes': 'value',
  '--json': 'flag',
  '--vault': 'value',
};

const DEFAULT_MAX_BYTES = 16 << 20;

/** `airlock screen`: the screen-reconstruction engine on a file, stdin or a vault artifact. */
export const screenCommand: Command = {
  name: 'screen',
  usage: USAGE,
  async run(args, io) {
    const { values, flags, positionals } = parseFlags(args, SPEC);
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE, - for stdin, or a restricted:sha256: reference');
    const cols = size('--cols', values['--cols'], SCREEN_DEFAULTS.cols, 2, 1000);
    const rows = size('--rows', values['--rows'], SCREEN_DEFAULTS.rows, 1, 1000);
    const maxBytes = values['--max-bytes'] ? parseByteCount('--max-bytes', values['--max-bytes']) : DEFAULT_MAX_BYTES;
    const json = flags.has('--json');
    const { path, shown } = await openArtifact(positionals[0], { offset: 0, length: Infinity, dump: false }, values['--vault'], io, { via: 'airlock screen', view: 'screen' });
    const pages: Uint8Array[] = [];
    let total = 0;
    for await (const page of readSource(path, io)) {
      total += page.length;
      if (total > maxBytes) throw new CliError(`${terminalSafeLine(shown)} is larger than --max-bytes ${maxBytes}: the screen engine holds the input in memory (raise --max-bytes)`);
      pages.push(page);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const p of pages) {
      bytes.set(p, at);
      at += p.length;
    }
    const report = reconstructScreen(bytes, { cols, rows });
    if (json) {
      const { findings, counts, screen, alternateScreen, layoutVerified, divergedAtLine, causesComplete, emulator } = report;
      io.stdout.write(`${terminalSafeJson({ source: shown, bytes: total, terminal: { cols, rows, emulator }, counts, findings, screen, alternateScreen, layoutVerified, divergedAtLine, causesComplete }, 2)}\n`);
      return 0;
    }
    const own: string[] = [`airlock screen: ${terminalSafeLine(shown)} on a ${cols}x${rows} terminal (${report.emulator})`];
    const c = report.counts;
    own.push(`printed ${c.printed} characters; hidden at the end: ${c.overwritten} overwritten, ${c.erased} erased, ${c.concealed} concealed, ${c.same_colour} same colour (ranges)`);
    if (c.scrolledOut > 0) own.push(`${c.scrolledOut} characters scrolled out of the scrollback (not counted as hidden)`);
    if (!report.layoutVerified) own.push(`warning: the emulator laid out the followed copy differently from line ${report.divergedAtLine}: findings after it may be wrong`);
    if (!report.causesComplete) own.push('the input erases the screen more often than the snapshot budget allows: later erased text is listed without its cause');
    if (report.alternateScreen) own.push('the alternate screen was still active at the end: the normal screen is behind it');
    writeOwnLines(io.stdout, own, 'airlock screen: ');
    const columns = terminalColumns(io) ?? 80;
    for (const f of report.findings) {
      writeOwnLines(io.stdout, describe(f), '    ');
      io.stdout.write(`${gutterRows(f.text, columns).rows.map((r) => `    ${r}`).join('\n')}\n`);
    }
    writeOwnLines(io.stdout, 'screen at the end:', '');
    const screen = report.screen.join('\n').replace(/\n+$/, '');
    if (screen.length > 0) io.stdout.write(`${gutterRows(`${screen}\n`, columns).rows.join('\n')}\n`);
    return 0;
  },
};

function describe(f: ScreenFinding): string {
  const where = f.line !== null ? ` at line ${f.line} column ${f.column}` : '';
  const by = f.by !== null ? ` by 0x${f.by.toString(16).padStart(8, '0')}` : '';
  return `  ${f.kind.padEnd(12)} 0x${f.offset.toString(16).padStart(8, '0')} +${f.length}${where}${by}:`;
}

function size(flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`);
  return n;
}
