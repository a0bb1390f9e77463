import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { isErrno, PRIVATE_FILE_MODE } from '../files/fs-atomic';

/** Options for {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this long. Default 10 s. */
  readonly timeoutMs?: number;
  /**
   * A lock older than this is stale whoever holds it. Default 30 s (a holder needs milliseconds).
   * Pass Infinity for a lock that may legitimately be held for long: it is then broken only when
   * its holder is a dead process on this host (or it stayed unreadable for 30 s).
   */
  readonly staleMs?: number;
}

/** Releases a lock taken with {@link holdFileLock}; idempotent, never throws. */
export type ReleaseLock = () => Promise<void>;

/** A lock file whose content never became readable is a creator that died mid-write: stale after this. */
const UNREADABLE_STALE_MS = 30_000;

interface LockInfo {
  pid: number;
  host: string;
  nonce: string;
}

const noop = (): void => undefined;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` while holding an exclusive lock file shared by processes: the file is created with
 * O_EXCL ('wx'), so exactly one creator wins. Losers retry with jittered exponential backoff.
 * A lock is broken when its holder is a dead process on this host, or when it is older than
 * `staleMs` (covers holders on other hosts and pid reuse).
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const releaseLock = await holdFileLock(lockPath, options);
  try {
    return await fn();
  } finally {
    await releaseLock();
  }
}

/**
 * Acquires the same lock as {@link withFileLock} and returns its release function, for a lock held
 * across steps that do not fit one callback (acquire here, release later in a `finally`).
 */
export async function holdFileLock(lockPath: string, options: FileLockOptions = {}): Promise<ReleaseLock> {
  const nonce = await acquire(lockPath, options.timeoutMs ?? 10_000, options.staleMs ?? 30_000);
  let released: Promise<void> | null = null;
  return () => (released ??= release(lockPath, nonce).catch(noop));
}

async function acquire(lockPath: string, timeoutMs: number, staleMs: number): Promise<string> {
  const me: LockInfo = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString('hex') };
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const fh = await open(lockPath, 'wx', PRIVATE_FILE_MODE);
      try {
        try {
          await fh.writeFile(JSON.stringify(me));
        } finally {
          await fh.close();
        }
      } catch (err) {
        // A lock we created but could not fill (full disk) would look like a creator still
        // writing its info and block every appender until it goes stale: remove it.
        await unlink(lockPath).catch(noop);
        throw err;
      }
      return me.nonce;
    } catch (err) {
      if (!isErrno(err, 'EEXIST')) throw err;
    }
    const seen = await readLock(lockPath);
    if (seen && isStale(seen.info, seen.ageMs, staleMs)) {
      await breakLock(lockPath, seen.text);
      continue;
    }
    if (Date.now() >= deadline) {
      const holder = seen?.info ? ` (held by pid ${seen.info.pid} on ${seen.info.host})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for lock ${lockPath}${holder}`);
    }
    await sleep(Math.min(50, 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
  }
}

async function readLock(lockPath: string): Promise<{ text: string; info: LockInfo | null; ageMs: number } | null> {
  try {
    const [text, st] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    return { text, info: parseInfo(text), ageMs: Date.now() - st.mtimeMs };
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null; // released meanwhile: just retry
    throw err;
  }
}

function parseInfo(text: string): LockInfo | null {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    return typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.nonce === 'string' ? (v as LockInfo) : null;
  } catch {
    return null; // empty: the creator has not written its info yet
  }
}

function isStale(info: LockInfo | null, ageMs: number, staleMs: number): boolean {
  if (ageMs > staleMs) return true;
  if (info === null) return ageMs > Math.min(staleMs, UNREADABLE_STALE_MS);
  return info.host === hostname() && !pidAlive(info.pid);
}

/** Whether a process with this pid exists (EPERM means it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return !isErrno(err, 'ESRCH');
  }
}

/**
 * Removes a stale lock without ever deleting a fresh one by mistake: rename it aside (atomic),
 * then compare what was moved with what was judged stale. If another process replaced the lock in
 * between, put the fresh one back with link(2), which fails rather than overwrite if yet another
 * lock appeared meanwhile.
 */
async function breakLock(lockPath: string, judged: string): Promise<void> {
  const aside = `${lockPath}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  const moved = await readFile(aside, 'utf8').catch(() => judged);
  if (moved !== judged) await link(aside, lockPath).catch(noop);
  await unlink(aside).catch(noop);
}

/** Deletes the lock only if it is still ours (a stale-breaker may have replaced it). */
async function release(lockPath: string, nonce: string): Promise<void> {
  const text = await readFile(lockPath, 'utf8').catch(() => null);
  if (text !== null && parseInfo(text)?.nonce === nonce) await unlink(lockPath).catch(noop);
}
