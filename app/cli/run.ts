import { COMMANDS } from './commands';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { writeOwnLines, type CliIo } from './command';
import { runCommand } from './run-command';
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
  return runCommand(await entry.load(), rest, io);
}
