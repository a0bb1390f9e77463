import { chmod, lstat, readdir, stat } from 'node:fs/promises';
import { ensurePrivateDir, isErrno, makeDirs, PRIVATE_DIR_MODE } from '../files/fs-atomic';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from './errors';
import type { VaultLayout } from './layout';

/**
 * Checks (and with `create`, makes) the vault root. Policy for a root that group or others can
 * access: refuse, naming the path and mode — silently tightening a populated directory would hide
 * that its contents were exposed. One exception: a directory that is still empty and owned by
 * us (e.g. fresh from `mkdir` under umask 022) is tightened to 0700 on create, since nothing in it
 * can have leaked yet.
 */
export async function prepareRoot(layout: VaultLayout, create: boolean): Promise<void> {
  const root = layout.root;
  const shown = terminalSafeLine(root);
  let st = await stat(root).catch((err: unknown) => {
    if (isErrno(err, 'ENOENT')) return null;
    throw wrapFsError(err, root);
  });
  if (st === null) {
    if (!create) throw new VaultError('no-vault', `no vault at ${shown}`);
    await withWriteErrors(root, () => makeDirs(root, PRIVATE_DIR_MODE));
    await withWriteErrors(root, () => chmod(root, PRIVATE_DIR_MODE));
    st = await stat(root);
  }
  if (!st.isDirectory()) throw new VaultError('not-a-directory', `vault path ${shown} is not a directory`);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) {
    throw new VaultError('insecure', `vault ${shown} is owned by uid ${st.uid}, not by you (uid ${uid}); refusing to use it`);
  }
  const mode = st.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    if (create && (await readdir(root)).length === 0) {
      await withWriteErrors(root, () => chmod(root, PRIVATE_DIR_MODE));
    } else {
      throw new VaultError(
        'insecure',
        `vault ${shown} has mode ${mode.toString(8).padStart(4, '0')}, which lets group or others in; refusing to use it (fix: chmod 700 ${shown})`,
      );
    }
  }
  // Checked on every open, before anything is created or scanned: prune deletes inside these,
  // so a planted link would steer deletions (and raw bytes) outside the vault.
  await assertLayoutDirs(layout);
  if (create) {
    for (const dir of [layout.rawBase, layout.rawRoot, layout.recordsDir, layout.tmpDir]) {
      await withWriteErrors(root, () => ensurePrivateDir(dir));
    }
  } else {
    // A vault is a root with records/; an arbitrary private directory is not one.
    const records = await stat(layout.recordsDir).catch(() => null);
    if (!records?.isDirectory()) throw new VaultError('no-vault', `no vault at ${shown}`);
  }
}

/** Refuses when `raw/`, `raw/sha256/`, `records/` or `tmp/` exists as a symbolic link or as something other than a directory. */
async function assertLayoutDirs(layout: VaultLayout): Promise<void> {
  for (const dir of [layout.rawBase, layout.rawRoot, layout.recordsDir, layout.tmpDir]) {
    const st = await lstat(dir).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return null;
      throw wrapFsError(err, layout.root);
    });
    if (st === null || st.isDirectory()) continue;
    const shown = terminalSafeLine(dir);
    if (st.isSymbolicLink()) {
      throw new VaultError('insecure', `vault path ${shown} is a symbolic link; refusing to use the vault (its directories must be real directories inside it)`);
    }
    throw new VaultError('not-a-directory', `vault path ${shown} is not a directory; refusing to use the vault`);
  }
}

/** Runs a filesystem write and turns permission failures into a clear 'not-writable' error. */
export async function withWriteErrors<T>(root: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw wrapFsError(err, root);
  }
}

/** Maps permission and read-only errors to VaultError('not-writable'); passes others through. */
export function wrapFsError(err: unknown, root: string): unknown {
  if (isErrno(err, 'EACCES', 'EPERM', 'EROFS')) {
    return new VaultError('not-writable', `vault ${terminalSafeLine(root)} is not accessible for writing (${(err as { code: string }).code})`);
  }
  if (isErrno(err, 'ENOTDIR')) {
    return new VaultError('not-a-directory', `vault path ${terminalSafeLine(root)} runs through a file, not a directory`);
  }
  if (isErrno(err, 'ENOENT', 'ENOSPC', 'EDQUOT', 'ENAMETOOLONG', 'ELOOP', 'EIO')) {
    const what = err instanceof Error ? err.message : String(err);
    return new VaultError('not-writable', `vault ${terminalSafeLine(root)} cannot be created or written: ${terminalSafeLine(what)}`);
  }
  return err;
}
