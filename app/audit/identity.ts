import { hostname, userInfo } from 'node:os';

/** Who performed an audited action: the OS account and the machine. */
export interface Actor {
  readonly user: string;
  readonly host: string;
}

/**
 * The current OS user and host name, reduced to printable ASCII (≤ 64 chars) because both end up
 * in the audit log and on operators' terminals. userInfo() throws when the uid has no passwd entry
 * (common in containers); then the numeric uid stands in.
 */
export function currentActor(): Actor {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    user = uid === undefined ? 'unknown' : `uid:${uid}`;
  }
  return { user: asciiLabel(user || 'unknown'), host: asciiLabel(hostname() || 'unknown') };
}

/** Replaces anything outside printable ASCII with `?` and caps the length. */
function asciiLabel(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 64);
}
