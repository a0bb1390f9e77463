import { readdir, readFile } from 'node:fs/promises';

/**
 * Sends `signal` to the whole process group `pgid` (the child was spawned as a group leader), so
 * grandchildren such as the `yes` under `sh -c 'yes'` get it too. Returns false when no process
 * of the group is left that we may signal. On Windows there are no process groups; the caller's fallback
 * signals the child alone.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    // ESRCH: nobody left. EPERM: only members we may not signal (a setuid program) are left;
    // there is nothing more Airlock can do about those, so they count as gone.
    const code = (err as { code?: unknown }).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw err;
  }
}

/**
 * Whether a process of group `pgid` is still running. kill(-pgid, 0) alone also counts zombies,
 * and in containers whose PID 1 does not reap orphans, a killed grandchild stays a zombie for
 * good; on Linux /proc tells the two apart, so the SIGKILL escalation is not sent (and reported)
 * for a group that is already dead.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return true;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 0x30 || name.charCodeAt(0) > 0x39) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
