import { readFileSync } from 'node:fs';
import { pidAlive } from '../audit/lock';
import { hostTag } from './raw-writer';

/**
 * The process that writes a running capture, told apart from any later process with the same pid:
 * this host, this boot, this pid, started at this time. A record whose owner is gone was
 * interrupted (Airlock was killed, the machine lost power) and is sealed as such.
 */
export interface RunningOwner {
  readonly pid: number;
  /** A short tag of the host name (raw-writer's hostTag). */
  readonly host: string;
  /** `/proc/sys/kernel/random/boot_id` (Linux), else null. */
  readonly boot: string | null;
  /** The process's start time in clock ticks since boot (`/proc/PID/stat` field 22), else null. */
  readonly start: string | null;
}

/** What is known of an owner: running, gone, or on another host (whose processes this one cannot see). */
export type OwnerState = 'alive' | 'gone' | 'other-host';

/** This process as a running capture's owner. */
export function currentOwner(): RunningOwner {
  return { pid: process.pid, host: hostTag(), boot: bootId(), start: startTicks(process.pid) };
}

/**
 * Whether `owner` still runs. Another host's is 'other-host' (never judged gone: its capture may be
 * running). On this host it is gone when the machine has rebooted since, no process has its pid,
 * or the process with its pid started at another time (the pid was reused).
 */
export function ownerState(owner: RunningOwner): OwnerState {
  if (owner.host !== hostTag()) return 'other-host';
  const boot = bootId();
  if (owner.boot !== null && boot !== null && owner.boot !== boot) return 'gone';
  // A killed process stays a zombie until its parent reaps it: it runs no more.
  if (!pidAlive(owner.pid) || procState(owner.pid) === 'Z') return 'gone';
  const start = startTicks(owner.pid);
  if (owner.start !== null && start !== null && owner.start !== start) return 'gone';
  return 'alive';
}

/** Reads an owner from parsed JSON, or null when it does not have the shape. */
export function asOwner(v: unknown): RunningOwner | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const str = (x: unknown): x is string | null => x === null || (typeof x === 'string' && x.length <= 64);
  if (!Number.isSafeInteger(o.pid) || (o.pid as number) <= 0 || typeof o.host !== 'string' || !/^[0-9a-f]{8}$/.test(o.host) || !str(o.boot) || !str(o.start)) return null;
  return { pid: o.pid as number, host: o.host, boot: o.boot as string | null, start: o.start as string | null };
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** The state letter of `/proc/PID/stat` (field 3: R, S, D, Z, …), or null. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

function startTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return /^\d+$/.test(fields[19] ?? '') ? fields[19] : null;
  } catch {
    return null;
  }
}
