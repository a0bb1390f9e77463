import { UsageError } from './command';
import { terminalSafeLine } from '../node/terminal-safe';

/** Which options a subcommand takes: 'value' options need an argument, 'flag' options do not. */
export type FlagSpec = Readonly<Record<string, 'value' | 'flag'>>;

/** Parsed options and the remaining positional arguments. */
export interface ParsedFlags {
  readonly values: Readonly<Record<string, string>>;
  readonly flags: ReadonlySet<string>;
  readonly positionals: readonly string[];
}

/**
 * Parses `--name value`, `--name=value` and `--flag` against `spec`; `--` ends options.
 * Unknown options, missing values, repeated options and values given to flags are UsageErrors,
 * because a mistyped option on a security tool must not be silently ignored.
 */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const values: Record<string, string> = {};
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const kind = spec[name];
    if (kind === undefined) throw new UsageError(`unknown option '${terminalSafeLine(name.slice(0, 60))}'`);
    if (values[name] !== undefined || flags.has(name)) throw new UsageError(`option ${name} given twice`);
    if (kind === 'flag') {
      if (eq !== -1) throw new UsageError(`option ${name} takes no value`);
      flags.add(name);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === '') throw new UsageError(`option ${name} needs a value`);
    values[name] = value;
  }
  return { values, flags, positionals };
}
