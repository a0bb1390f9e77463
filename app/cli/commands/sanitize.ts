import { Sanitizer, type CrMode } from '../../../shared/sanitize';
import { writeFileAtomic } from '../../node/fs-atomic';
import { sha256Digest } from '../../node/sha256';
import { parseFlags } from '../flags';
import { CliError, UsageError, type Command } from '../command';
import { readLimitFlags } from '../limit-flags';
import { parseByteCount } from '../size';
import { readStdin, StdoutWriter } from '../stdio';

const USAGE = `Usage: airlock sanitize [--report FILE] [--cr newline|overwrite] [--max-bytes N] [--max-string N] [--max-csi N]

Reads raw terminal bytes on stdin and writes sanitized UTF-8 text on stdout (and nothing else).
  --report FILE     write the removal report (JSON, no payload bytes) to FILE, atomically
  --cr MODE         newline (default): CR is a line break, BS is removed, so overwritten text stays
                    visible; overwrite: emulate a terminal line (CR to column 0, BS one left)
  --max-bytes N     read at most N bytes (suffixes K, M, G); the report says "truncated": true
  --max-string N    payload bytes one OSC/DCS/APC/PM/SOS string may hold before it counts as oversized
  --max-csi N       parameter bytes one CSI may hold before it counts as oversized`;

/** `airlock sanitize`: stdin to sanitized stdout, with an optional JSON removal report. */
export const sanitizeCommand: Command = {
  name: 'sanitize',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      '--report': 'value', '--cr': 'value', '--max-bytes': 'value', '--max-string': 'value', '--max-csi': 'value',
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0].slice(0, 60)}' (input comes on stdin)`);
    const cr = parseCrMode(values['--cr']);
    const maxBytes = values['--max-bytes'] ? parseByteCount('--max-bytes', values['--max-bytes']) : Infinity;
    const reportPath = values['--report'];
    const sanitizer = new Sanitizer({
      cr,
      limits: readLimitFlags(values),
      digest: reportPath ? sha256Digest() : undefined,
      reuseOutputBuffer: true,
    });
    const out = new StdoutWriter(io);
    let read = 0;
    let truncated = false;
    for await (const chunk of readStdin(io)) {
      let bytes = chunk;
      if (read + bytes.length > maxBytes) {
        bytes = bytes.subarray(0, maxBytes - read);
        truncated = true;
      }
      read += bytes.length;
      const text = sanitizer.write(bytes);
      if (text.length > 0) await out.write(text);
      if (truncated) break;
    }
    await out.write(sanitizer.end());
    if (truncated) io.stderr.write(`airlock sanitize: input truncated at ${maxBytes} bytes (--max-bytes)\n`);
    if (reportPath) {
      const report = sanitizer.getReport(truncated);
      try {
        await writeFileAtomic(reportPath, `${JSON.stringify(report, null, 2)}\n`, { mode: 0o644 });
      } catch (err) {
        throw new CliError(`cannot write report to ${reportPath}: ${(err as Error).message}`);
      }
    }
    return 0;
  },
};

/** Parses `--cr`; absent means `newline`. */
export function parseCrMode(value: string | undefined): CrMode {
  if (value === undefined || value === 'newline' || value === 'overwrite') return value ?? 'newline';
  throw new UsageError(`--cr must be 'newline' or 'overwrite', not '${value.slice(0, 40)}'`);
}
