import { UsageError } from '../cli/command';
import { parseFlags, type FlagSpec, type ParsedFlags } from '../cli/flags';
import { terminalSafeLine } from '../terminal/terminal-safe';
import type { EnvEdit } from './child-env';

/** A capture command line split into Airlock's options, `--env` edits and the command to run. */
export interface CaptureArgs {
  readonly options: ParsedFlags;
  readonly env: EnvEdit[];
  readonly argv: string[];
}

/** Environment variable names a POSIX shell could set: anything else is a typo or an attack. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Splits `[OPTIONS] [--] CMD [ARGS...]`. Options end at `--` or at the first argument that is
 * not an option, so the command's own flags (`-- grep -r x`) are never taken for Airlock's; the
 * options are checked by parseFlags against `spec`, whose `--env` entry is a repeatable `list`.
 * A NUL byte in the command or a value is refused: the kernel cannot pass it and Node would fail
 * late with a less clear message.
 */
export function splitCaptureArgs(args: readonly string[], spec: FlagSpec): CaptureArgs {
  const end = captureOptionsEnd(args, spec);
  const sawSeparator = args[end] === '--';
  const argv = args.slice(sawSeparator ? end + 1 : end);
  const options = parseFlags(args.slice(0, end), spec);
  const env = (options.lists['--env'] ?? []).map(parseEnvEdit);
  if (argv.length === 0) {
    throw new UsageError(sawSeparator ? 'no command after --' : 'no command to run (usage: airlock capture [OPTIONS] -- CMD [ARGS...])');
  }
  if (argv[0] === '') throw new UsageError('the command name is empty');
  const nul = argv.findIndex((a) => a.includes('\0'));
  if (nul !== -1) throw new UsageError(`argument ${nul} of the command contains a NUL byte`);
  return { options, env, argv };
}

/**
 * Index where Airlock's options end in a capture command line: at `--` or at the first argument
 * that is not an option. A value option (and `--env`) carries its argument with it, so a value
 * such as `1M` is not taken for the command.
 */
export function captureOptionsEnd(args: readonly string[], spec: FlagSpec): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--' || !arg.startsWith('-') || arg === '-') return i;
    const kind = spec[arg];
    const takesValue = kind === 'value' || kind === 'list';
    if (takesValue && i + 1 < args.length && !args[i + 1].startsWith('--')) i++;
  }
  return args.length;
}

/** Parses one `--env` value: `K=V` sets K (V may be empty or contain `=`), `K` removes K. */
export function parseEnvEdit(text: string): EnvEdit {
  const eq = text.indexOf('=');
  const key = eq === -1 ? text : text.slice(0, eq);
  if (!ENV_NAME.test(key)) {
    throw new UsageError(`--env '${terminalSafeLine(text.slice(0, 60))}': the name must be letters, digits and _ (not starting with a digit)`);
  }
  if (eq === -1) return { key, unset: true };
  const value = text.slice(eq + 1);
  if (value.includes('\0')) throw new UsageError(`--env ${key}: the value contains a NUL byte`);
  return { key, value };
}
