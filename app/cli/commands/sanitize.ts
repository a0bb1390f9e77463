import { Sanitizer, type CrMode } from '../../../shared/sanitize';
import { OutputPathError, prepareOutput, writeOutput } from '../../files/output-file';
import { sha256Digest } from '../sha256';
import { parseFlags, type FlagSpec } from '../flags';
import { CliError, UsageError, type Command } from '../command';
import { readSource } from '../byte-source';
import { readLimitFlags } from '../limit-flags';
import { parseByteCount } from '../size';
import { readStdin, StdoutWriter } from '../stdio';

const USAGE = `Usage: airlock sanitize [FILE|-] [--report FILE|-] [--cr newline|overwrite] [--max-bytes N] [--max-string N] [--max-csi N]

Reads raw terminal bytes from FILE (default: stdin) and writes sanitized UTF-8 text on stdout
(and nothing else).
  --report FILE     write the removal report (JSON, no payload bytes) to FILE: a regular file is
                    replaced atomically, a device or FIFO (/dev/stderr, a named pipe) is written
                    through, a symbolic link is followed; the path is checked before any input is
                    read. --report - prints the report on stdout instead of the text
  --cr MODE         newline (default): CR is a line break, BS is removed, so overwritten text stays
                    visible; overwrite: emulate a terminal line (CR to column 0, BS one left)
  --max-bytes N     read at most N bytes (suffixes K, M, G); the report says "truncated": true
  --max-string N    payload bytes one OSC/DCS/APC/PM/SOS string may hold before it counts as oversized
  --max-csi N       parameter bytes one CSI may hold before it counts as oversized`;

const SPEC: FlagSpec = {
  '--report': 'value',
  '--cr': 'value',
  '--max-bytes': 'value',
  '--max-string': 'value',
  '--max-csi': 'value',
};

/** `airlock sanitize`: stdin (or FILE) to sanitized stdout, with an optional JSON removal report. */
export const sanitizeCommand: Command = {
  name: 'sanitize',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, SPEC);
    if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1].slice(0, 60)}' (give one FILE, or none for stdin)`);
    const inputPath = positionals[0] ?? '-';
    const cr = parseCrMode(values['--cr']);
    const maxBytes = values['--max-bytes'] ? parseByteCount('--max-bytes', values['--max-bytes']) : Infinity;
    const reportPath = values['--report'];
    // Checked before any input is read: a bad report path must not fail after all text was written.
    const report = reportPath === undefined ? undefined : await prepareOutput(reportPath, io.cwd, 'report').catch(asCliError);
    const textToStdout = report?.kind !== 'stdout';
    const sanitizer = new Sanitizer({
      cr,
      limits: readLimitFlags(values),
      digest: reportPath ? await sha256Digest() : undefined,
      reuseOutputBuffer: true,
    });
    const out = new StdoutWriter(io);
    let read = 0;
    let truncated = false;
    // stdin keeps the fast synchronous reader; a file is read in pages.
    const source = inputPath === '-' ? readStdin(io) : readSource(inputPath, io);
    for await (const chunk of source) {
      let bytes = chunk;
      if (read + bytes.length > maxBytes) {
        bytes = bytes.subarray(0, maxBytes - read);
        truncated = true;
      }
      read += bytes.length;
      const text = sanitizer.write(bytes);
      if (text.length > 0 && textToStdout) await out.write(text);
      if (truncated) break;
    }
    const last = sanitizer.end();
    if (textToStdout) await out.write(last);
    if (truncated) io.stderr.write(`airlock sanitize: input truncated at ${maxBytes} bytes (--max-bytes)\n`);
    if (report) {
      const json = `${JSON.stringify(sanitizer.getReport(truncated), null, 2)}\n`;
      if (report.kind === 'stdout') await out.write(Buffer.from(json, 'utf8'));
      else await writeOutput(report, json, 'report').catch(asCliError);
    }
    return 0;
  },
};

function asCliError(err: unknown): never {
  if (err instanceof OutputPathError) throw new CliError(err.message);
  throw err;
}

/** Parses `--cr`; absent means `newline`. */
export function parseCrMode(value: string | undefined): CrMode {
  if (value === undefined || value === 'newline' || value === 'overwrite') return value ?? 'newline';
  throw new UsageError(`--cr must be 'newline' or 'overwrite', not '${value.slice(0, 40)}'`);
}
