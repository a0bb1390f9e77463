import { constants as fsc } from 'node:fs';
import { access, lstat, open, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isErrno, writeFileAtomic } from './fs-atomic';
import { terminalSafeLine } from '../terminal/terminal-safe';

/**
 * Where a command writes an output file (`--report FILE`), decided before any work is done:
 * - `stdout` for `-`;
 * - `replace`: a regular file (or a new name) in a writable directory, written atomically
 *   (temp file and rename), so readers see the old or the whole new content;
 * - `through`: a character device or FIFO (`/dev/null`, `/dev/stdout`, a named pipe), opened and
 *   written as it is: renaming over it would replace the device node with a plain file.
 * A symbolic link is followed to its target, which is then treated as above, so the link stays.
 */
export type OutputTarget =
  | { readonly kind: 'stdout' }
  | { readonly kind: 'replace'; readonly path: string; readonly shown: string }
  | { readonly kind: 'through'; readonly path: string; readonly shown: string };

/** An output path that cannot be used; the message names it and why, on one line. */
export class OutputPathError extends Error {
  override readonly name = 'OutputPathError';
}

/**
 * Checks `path` (relative to `cwd`) as an output for `what` (e.g. "report") and says how it will
 * be written. Throws OutputPathError for a directory, a block device, a socket, a dangling link, or
 * a missing or unwritable parent directory.
 */
export async function prepareOutput(path: string, cwd: string, what: string): Promise<OutputTarget> {
  if (path === '-') return { kind: 'stdout' };
  const shown = terminalSafeLine(path.slice(0, 200));
  const fail = (why: string): never => {
    throw new OutputPathError(`cannot write the ${what} to ${shown}: ${why}`);
  };
  let target = resolve(cwd, path);
  const link = await lstat(target).catch((err: unknown) => (isErrno(err, 'ENOENT') ? null : fail(errnoText(err))));
  if (link?.isSymbolicLink()) {
    target = await realpath(target).catch((err: unknown) => fail(isErrno(err, 'ENOENT') ? 'it is a symbolic link to a missing file' : errnoText(err)));
  }
  const st = link === null ? null : await stat(target).catch((err: unknown) => fail(errnoText(err)));
  if (st?.isDirectory()) fail('it is a directory');
  if (st?.isBlockDevice()) fail('it is a block device');
  if (st?.isSocket()) fail('it is a socket');
  if (st?.isCharacterDevice() || st?.isFIFO()) {
    await access(target, fsc.W_OK).catch(() => fail('it is not writable'));
    return { kind: 'through', path: target, shown };
  }
  const dir = dirname(target);
  const dirStat = await stat(dir).catch(() => null);
  if (!dirStat?.isDirectory()) fail(`the directory ${terminalSafeLine(dir.slice(0, 200))} does not exist`);
  await access(dir, fsc.W_OK | fsc.X_OK).catch(() => fail(`the directory ${terminalSafeLine(dir.slice(0, 200))} is not writable`));
  return { kind: 'replace', path: target, shown };
}

/**
 * Writes `data` to a prepared file target (stdout targets are the caller's: it owns that stream).
 * A failure is an OutputPathError naming the path the user gave, never a temp file.
 */
export async function writeOutput(target: Exclude<OutputTarget, { kind: 'stdout' }>, data: string | Uint8Array, what: string, mode = 0o644): Promise<void> {
  try {
    if (target.kind === 'replace') {
      await writeFileAtomic(target.path, data, { mode });
      return;
    }
    // No O_CREAT, no O_TRUNC: the node exists and is a device or pipe; O_NOFOLLOW is unneeded
    // since the path is the resolved target.
    const fh = await open(target.path, fsc.O_WRONLY);
    try {
      await fh.writeFile(data);
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw new OutputPathError(`cannot write the ${what} to ${target.shown}: ${errnoText(err)}`);
  }
}

function errnoText(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : terminalSafeLine(err instanceof Error ? err.message : String(err));
}
