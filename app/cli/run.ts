import { COMMANDS } from './commands';
import { terminalSafeLine } from '../node/terminal-safe';
import { CliError, UsageError, writeOwnLines, type CliIo, type Command } from './command';
import { AIRLOCK_VERSION } from './version';

const HELP = (): string =>
  [
    'airlock: terminal output is untrusted input.',
    '',
    'Usage: airlock <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`),
    '',
    'Run `airlock <command> --help` for the options of one command, `airlock --version` for the version.',
    '',
  ].join('\n');

/**
 * Runs one `airlock` invocation and resolves to its exit code: 0 success, 1 failure,
 * 2 usage error, or what the command itself returns (capture: see its exit status table).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(HELP());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`airlock ${AIRLOCK_VERSION}\n`);
    return 0;
  }
  if (name === undefined) {
    io.stderr.write(`airlock: missing command; run 'airlock --help' for the list\n`);
    return 2;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    writeOwnLines(io.stderr, `airlock: unknown command '${terminalSafeLine(name.slice(0, 60))}'; run 'airlock --help' for the list`, 'airlock:+ ');
    return 2;
  }
  const command = await entry.load();
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
