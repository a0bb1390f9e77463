import { constants } from 'node:os';
import type { ChildExit } from './child';

/** Exit status when the command does not exist (as POSIX shells report it). */
export const EXIT_NOT_FOUND = 127;
/** Exit status when the command exists but cannot be executed. */
export const EXIT_CANNOT_EXECUTE = 126;

/**
 * The status `airlock capture` exits with, mirroring the command: its exit code, or 128 + the
 * signal number when a signal ended it (as a shell reports it: SIGTERM → 143, SIGKILL → 137).
 * This holds also when Airlock sent the signal (--max-bytes, --timeout): the command did not
 * finish, and the envelope says why.
 */
export function exitStatus(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  const number = exit.signal ? constants.signals[exit.signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}
