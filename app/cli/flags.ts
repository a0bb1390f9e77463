import { parseArgs } from 'node:util';
import { UsageError } from './command';
import { terminalSafeLine } from '../terminal/terminal-safe';

/**
 * Which options a subcommand takes, one table entry per option: `value` options need an
 * argument, `flag` options take none, `list` options need an argument and may repeat. Adding an
 * option to a command is one line in its table.
 */
export type FlagKind = 'value' | 'flag' | 'list';
export type FlagSpec = Readonly<Record<string, FlagKind>>;

/** Parsed options and the remaining positional arguments. */
export interface ParsedFlags {
  readonly values: Readonly<Record<string, string>>;
  readonly flags: ReadonlySet<string>;
  /** Every value of each `list` option, in order (absent when not given). */
  readonly lists: Readonly<Record<string, readonly string[]>>;
  readonly positionals: readonly string[];
}

/**
 * Parses `--name value`, `--name=value` and `--flag` against `spec` with node:util parseArgs;
 * `--` ends options. Unknown options, short options, missing or empty values, repeated options
 * (except `list` ones) and values given to flags are UsageErrors, because a mistyped option on a
 * security tool must not be silently ignored. parseArgs runs non-strict so that every mistake is
 * reported here in one line naming the option (its strict errors span several lines).
 */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, kind] of Object.entries(spec)) options[name.replace(/^--/, '')] = { type: kind === 'flag' ? 'boolean' : 'string' };
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const name = token.rawName;
    const kind = name.startsWith('--') ? spec[name] : undefined;
    if (kind === undefined) throw new UsageError(`unknown option '${terminalSafeLine(name.slice(0, 60))}'`);
    if (kind !== 'list' && (values[name] !== undefined || flags.has(name))) throw new UsageError(`option ${name} given twice`);
    if (kind === 'flag') {
      if (token.value !== undefined) throw new UsageError(`option ${name} takes no value`);
      flags.add(name);
      continue;
    }
    // Non-strict parseArgs takes the next argument whatever it is; `--vault --json` is a missing value.
    const value = token.value;
    if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('--'))) throw new UsageError(`option ${name} needs a value`);
    if (kind === 'list') (lists[name] ??= []).push(value);
    else values[name] = value;
  }
  return { values, flags, lists, positionals };
}

/** Refuses positional arguments for a subcommand that takes none. */
export function noPositionals(parsed: ParsedFlags): void {
  const extra = parsed.positionals[0];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${terminalSafeLine(extra.slice(0, 40))}'`);
}
