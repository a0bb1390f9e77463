import { terminalSafeLine } from '../terminal/terminal-safe';
import { UsageError, type CliIo, type Command } from './command';
import { toCliError } from './vault-open';

/** One subcommand: the arguments after its name in, the exit code out. */
export type Subcommand = (args: readonly string[], io: CliIo) => Promise<number>;

export interface SubcommandsSpec {
  readonly name: string;
  readonly usage: string;
  /** By name, in the order the usage lists them (a missing subcommand names them in this order). */
  readonly subcommands: Readonly<Record<string, Subcommand>>;
  /**
   * Runs when the first argument is an option (`--…`), with every argument (`airlock request
   * --artifact …` queues a request); without it, an option there is an unknown subcommand.
   */
  readonly options?: Subcommand;
  /** What a call with no arguments is told; default: `missing subcommand (a, b or c)`. */
  readonly missing?: string;
  /** Said after an unknown subcommand's name, in parentheses: what there is instead. */
  readonly unknownHint?: string;
  /** Turns the library's failures into CliErrors (default toCliError: vault and audit errors). */
  readonly asCliError?: (err: unknown) => unknown;
}

/**
 * A command made of subcommands (`airlock audit verify …`): the first argument picks one, which
 * runs with the rest. No subcommand, or one it does not have, is a UsageError (exit code 2, one
 * line pointing at `--help`); the subcommand's own failures go through `asCliError`.
 */
export function subcommands(spec: SubcommandsSpec): Command {
  const names = Object.keys(spec.subcommands);
  const missing = spec.missing ?? `missing subcommand (${names.slice(0, -1).join(', ')} or ${names.at(-1)})`;
  return {
    name: spec.name,
    usage: spec.usage,
    async run(args, io) {
      const [sub, ...rest] = args;
      try {
        if (sub === undefined) throw new UsageError(missing);
        if (Object.hasOwn(spec.subcommands, sub)) return await spec.subcommands[sub](rest, io);
        if (spec.options && sub.startsWith('--')) return await spec.options(args, io);
        throw new UsageError(`unknown subcommand '${terminalSafeLine(sub.slice(0, 40))}'${spec.unknownHint ? ` (${spec.unknownHint})` : ''}`);
      } catch (err) {
        throw (spec.asCliError ?? toCliError)(err);
      }
    },
  };
}
