import { accessSync, constants as fsc, statSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';

/** First executable regular file called `name` on `path` (relative entries from `cwd`), or null. */
export function findExecutable(name: string, path: string, cwd: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const full = resolve(cwd, dir, name);
    let isFile = false;
    try {
      isFile = statSync(full, { throwIfNoEntry: false })?.isFile() === true;
    } catch {
      // a PATH entry this user cannot search
    }
    if (isFile && isExecutable(full)) return full;
  }
  return null;
}

/** Whether this process may execute `file`. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, fsc.X_OK);
    return true;
  } catch {
    return false;
  }
}
