import { terminalSafeLine } from '../terminal/terminal-safe';
import { CliError, UsageError, writeOwnLines, type CliIo, type Command } from './command';

/**
 * Runs one loaded command with its arguments and resolves to the exit code: its `--help`, then
 * its run, with errors turned into one line on stderr (2 for a usage error, the error's own code
 * for a {@link CliError}, 1 for anything else). Shared by the full CLI and the fast `sanitize` entry.
 */
export async function runCommand(command: Command, rest: readonly string[], io: CliIo): Promise<number> {
  if (ownOptions(command, rest).some((a) => a === '--help' || a === '-h')) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      // One line and a pointer: the whole usage page would bury the message.
      writeOwnLines(io.stderr, `airlock ${command.name}: ${terminalSafeLine(err.message)} (see 'airlock ${command.name} --help')`, `airlock ${command.name}:+ `);
      return 2;
    }
    if (err instanceof CliError) {
      writeOwnLines(io.stderr, `airlock ${command.name}: ${terminalSafeLine(err.message)}`, `airlock ${command.name}:+ `);
      return err.exitCode;
    }
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    const message = err instanceof Error ? err.message : String(err);
    writeOwnLines(io.stderr, `airlock ${command.name}: ${terminalSafeLine(message)}`, `airlock ${command.name}:+ `);
    return 1;
  }
}

/** The arguments that are Airlock's own options: by default those before `--`. */
function ownOptions(command: Command, args: readonly string[]): readonly string[] {
  if (command.ownOptions) return command.ownOptions(args);
  const end = args.indexOf('--');
  return end < 0 ? args : args.slice(0, end);
}
