import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** One line of /proc/self/mountinfo: which part of which file system is mounted where. */
export interface MountEntry {
  /** `major:minor` of the file system. */
  readonly device: string;
  /** The directory of that file system that the mount shows (`/` for the whole of it). */
  readonly root: string;
  /** Where it is mounted. */
  readonly mountPoint: string;
}

/** Parses mountinfo text (proc(5)); paths have their octal escapes (`\040` for a space) undone. */
export function parseMountInfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    if (f.length < 5) continue;
    out.push({ device: f[2], root: unescapeMountPath(f[3]), mountPoint: unescapeMountPath(f[4]) });
  }
  return out;
}

function unescapeMountPath(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** True when `path` is `dir` or lies below it (both absolute and normalized). */
export function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Every path at which the directory `dir` (a real path) can be reached in this mount namespace:
 * its own path, and the same directory seen through any other mount of its file system whose
 * root lies above it (a bind mount of `$HOME` at `/mnt/home`, a second mount of the same disk).
 * A location counts only when it really shows that directory now (same device and inode), so a
 * path a later mount covers is left out.
 *
 * Why: hiding the vault at one path is not hiding it when a bind mount shows it at another; the
 * sandbox masks (and refuses to let a command write above) every location this returns.
 */
export function locationsOf(dir: string, mountInfo: string = readFileSync('/proc/self/mountinfo', 'utf8')): string[] {
  const target = statSync(dir, { throwIfNoEntry: false });
  if (!target?.isDirectory()) return [];
  const mounts = parseMountInfo(mountInfo);
  // The mount that shows `dir` at its own path: the last (topmost) one at the longest prefix.
  let home: MountEntry | undefined;
  for (const m of mounts) {
    if (!isWithin(dir, m.mountPoint)) continue;
    if (!home || m.mountPoint.length >= home.mountPoint.length) home = m;
  }
  const found = new Set<string>([dir]);
  if (!home) return [...found];
  const inFs = join(home.root, relative(home.mountPoint, dir));
  for (const m of mounts) {
    if (m.device !== home.device || !isWithin(inFs, m.root)) continue;
    const at = join(m.mountPoint, relative(m.root, inFs));
    if (found.has(at)) continue;
    const st = statSync(at, { throwIfNoEntry: false });
    if (st?.isDirectory() && st.dev === target.dev && st.ino === target.ino) found.add(at);
  }
  return [...found];
}
