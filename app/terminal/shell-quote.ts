/** Characters a POSIX shell word may hold without quoting. */
const PLAIN_WORD = /^[A-Za-z0-9_/.,:=@%+-]+$/;

/**
 * One argument quoted for a POSIX shell: plain words as they are, everything else in single
 * quotes (`'` as `'\''`). For display only; control characters stay in the string (JSON escapes
 * them, renderers pass them through terminalSafe).
 */
export function shellQuote(arg: string): string {
  return PLAIN_WORD.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** argv as one display string, e.g. `sh -c 'printf hi'`. */
export function commandString(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
