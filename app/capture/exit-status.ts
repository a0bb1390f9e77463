import { constants } from 'node:os';
import type { ChildExit } from './child';
import type { Termination } from './capture';

/** Exit status when the command does not exist (as POSIX shells report it). */
export const EXIT_NOT_FOUND = 127;
/** Exit status when the command exists but cannot be executed. */
export const EXIT_CANNOT_EXECUTE = 126;
/** Exit status when Airlock stopped the command at --timeout (as timeout(1) reports it). */
export const EXIT_TIMEOUT = 124;
/** Exit status when Airlock stopped the command at --max-bytes: the captured output is cut short. */
export const EXIT_TRUNCATED = 125;

/**
 * What `airlock capture` exits with. The command's own status (see {@link exitStatus}) when it
 * ended on its own or for any other reason; but when Airlock itself stopped it at --timeout (124)
 * or at --max-bytes (125), the signal that ended it was Airlock's, so the status says that instead
 * of passing for the command's own result. The envelope keeps `exit_code` and `signal` as they were.
 */
export function captureExitStatus(exit: ChildExit, termination: Termination | null): number {
  if (termination?.reason === 'timeout') return EXIT_TIMEOUT;
  if (termination?.reason === 'max-bytes') return EXIT_TRUNCATED;
  return exitStatus(exit);
}

/**
 * The status `airlock capture` exits with, mirroring the command: its exit code, or 128 + the
 * signal number when a signal ended it (as a shell reports it: SIGTERM → 143, SIGKILL → 137).
 * Airlock's own stops (--max-bytes, --timeout) are told apart by {@link captureExitStatus}.
 */
export function exitStatus(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  const number = exit.signal ? constants.signals[exit.signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}
