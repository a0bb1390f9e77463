import { constants as fsc } from 'node:fs';
import { chmod, link, lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** Mode for every file Airlock keeps: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode for every directory Airlock keeps: owner only. */
export const PRIVATE_DIR_MODE = 0o700;

/** Suffix of the temporary files `writeFileAtomic` leaves behind only if the process dies mid-write. */
export const ATOMIC_TEMP_SUFFIX = '.tmp';

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode, applied with chmod after creation so the umask cannot widen or narrow it. Default 0600. */
  readonly mode?: number;
  /**
   * Refuse to replace an existing file (EEXIST). Implemented with link(2) instead of rename(2), so
   * the check and the publish are one atomic step.
   */
  readonly exclusive?: boolean;
}

/**
 * Writes `data` (whole, or streamed chunk by chunk) to `path` so that readers see either the old
 * file or the complete new one, never a torn write, even across a crash: temp file in the same directory (same filesystem, so rename is
 * atomic), explicit chmod, fsync of the data, rename (or link for `exclusive`), fsync of the
 * directory so the new name itself is durable.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array | AsyncIterable<string | Uint8Array>, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? PRIVATE_FILE_MODE;
  const dir = dirname(path);
  // A leading dot and a fixed suffix let directory scanners recognise and skip leftovers.
  // node:crypto on first use: loading it is start-up time `sanitize` without --report never needs.
  const { randomBytes } = await import('node:crypto');
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}${ATOMIC_TEMP_SUFFIX}`);
  const fh = await open(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, mode);
  let published = false;
  try {
    try {
      await fh.chmod(mode);
      if (typeof data === 'string' || data instanceof Uint8Array) await fh.writeFile(data);
      // Streamed: any size in bounded memory (writeFile on a handle writes whole, from where the last one ended).
      else for await (const chunk of data) await fh.writeFile(chunk);
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (options.exclusive) {
      await link(temp, path);
      await unlink(temp);
    } else {
      await rename(temp, path);
    }
    published = true;
    await fsyncDir(dir);
  } finally {
    if (!published) await unlink(temp).catch(() => undefined);
  }
}

/**
 * fsyncs a directory so that entries created, renamed or removed in it survive a crash.
 * Some filesystems refuse fsync on directories (EINVAL/EISDIR/EPERM); that is not an error for us.
 */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, fsc.O_RDONLY | fsc.O_DIRECTORY);
  try {
    await fh.sync();
  } catch (err) {
    if (!isErrno(err, 'EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP')) throw err;
  } finally {
    await fh.close();
  }
}

/**
 * Creates `dir` (and missing parents) and forces it to 0700. chmod runs even when the directory
 * already existed, because mkdir's mode is filtered through the umask and ignored for existing dirs.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await makeDirs(dir, PRIVATE_DIR_MODE);
  // mkdir succeeds on an existing link to a directory, and chmod would follow it: a planted link
  // must not steer raw bytes (or a chmod) outside the vault.
  const st = await lstat(dir);
  if (!st.isDirectory()) {
    throw Object.assign(new Error(`${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; refusing to use it`), { code: 'EUNSAFEDIR' });
  }
  await chmod(dir, PRIVATE_DIR_MODE);
}

/**
 * Creates `dir` and its missing parents, one mkdir(2) per missing component, and fails with the
 * first error. Used instead of `mkdir({recursive: true})`, which on Node 20 retries forever where
 * mkdir keeps answering ENOENT although the parent exists (`/proc/foo`): a path error must end
 * promptly. Each error names the component that could not be made.
 */
export async function makeDirs(dir: string, mode: number): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const st = await stat(at).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    });
    if (st) {
      if (!st.isDirectory()) throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR', path: at });
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const path of missing) {
    try {
      await mkdir(path, { mode });
    } catch (err) {
      if (isErrno(err, 'EEXIST')) continue; // made meanwhile by a concurrent capture: fine if it is a directory
      const code = String((err as { code?: unknown }).code ?? 'error');
      throw Object.assign(new Error(`cannot create directory ${path} (${code})`), { code, path });
    }
  }
}

/** True when `err` is a Node system error with one of the given `code`s. */
export function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes(String((err as { code?: unknown }).code));
}

/** True when the path exists (any file type, symlinks not followed); false on ENOENT; other errors propagate. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return false;
    throw err;
  }
}
