// Raw bytes of a running capture's stream under a grant (`readRunningRaw`), and what becomes of
// such grants when the capture ends. The bytes go to a temp file in the vault's tmp/ until the
// capture is sealed (app/vault/raw-writer.ts); the file is append-only, so bytes below its size
// never change. Which file is main's own knowledge: the name the capture's log gave (read by the
// follow service, checked to be a raw temp name), never anything the caller sends.
//
// When the capture is sealed, the grant goes on over the sealed artifact of the same record and
// stream (GrantStore.continueSealed, audited with its digest): the human approved that stream's
// bytes, and the sealed artifact is those bytes. When its Airlock is gone (interrupted) or it
// failed, the grant ends: another process seals or removes what it left, and nothing here reads a
// temp file that process may remove or reuse.
import { closeSync, fstatSync, openSync, constants as fsc } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { MAX_RAW_READ } from '../../../shared/bridge/limits';
import type { FollowUpdate, RunningRawPage } from '../../../shared/bridge/types';
import { readUpTo } from '../../files/read-up-to';
import { formatRef, type Vault } from '../../vault';
import { BridgeError } from '../bridge/errors';
import type { CheckedRunningGrant, GrantStore } from '../grants/grants';
import { readRawRange } from '../raw/read';
import type { FollowService, RunningRawState } from './follow';

/** Temp files read at most (identities kept, one per stream of a capture read under a grant). */
const MAX_PINNED = 256;

export type RunningRawReader = ReturnType<typeof createRunningRawReader>;

export function createRunningRawReader(deps: { vault: Vault; grants: GrantStore; follow: FollowService }) {
  const { vault, grants, follow } = deps;
  /**
   * The temp file first read for `<record>:<stream>` (device, inode, birth time, largest size seen):
   * every later read must find the same file, never smaller. A file replaced under the same name
   * (another process reusing it, a planted one; the birth time tells a reused inode apart) is refused.
   */
  const pinned = new Map<string, { dev: bigint; ino: bigint; born: bigint; size: bigint }>();

  /** Acts on what the capture's state says: the grant goes on over the sealed artifact, or ends. Returns it as it then stands. */
  async function settle(g: CheckedRunningGrant, st: RunningRawState): Promise<CheckedRunningGrant> {
    if (st.state === 'running') return g;
    if (st.state === 'sealed' && st.raw && !st.interrupted) {
      const ref = formatRef(st.raw.sha256);
      await grants.continueSealed(g.info.id, { recordId: g.recordId, stream: g.stream, ref, sha256: st.raw.sha256, size: st.raw.size });
      return { ...g, sealed: { ref, sha256: st.raw.sha256, size: st.raw.size } };
    }
    // Interrupted (sealed as such by another process, or its Airlock gone), failed, or without a record.
    const failed = st.state === 'failed' || st.state === 'gone' || (st.state === 'sealed' && !st.raw);
    await grants.endRunning(g.info.id, failed ? 'capture-failed' : 'capture-interrupted');
    pinned.delete(`${g.recordId}:${g.stream}`);
    throw new BridgeError('no-grant', failed
      ? `capture ${g.recordId} ended without a sealed ${g.stream} artifact: the grant on it ended`
      : `capture ${g.recordId} was interrupted (its Airlock is gone): the grant on it ended; open its interrupted record and ask for raw access again`);
  }

  /** Reads `[offset, offset + length)` of the sealed artifact a continued grant covers. */
  async function readSealed(g: CheckedRunningGrant, offset: number, length: number): Promise<RunningRawPage> {
    const s = g.sealed!;
    if (offset > s.size) throw new BridgeError('bad-request', `offset ${offset} is past the end of the sealed artifact (${s.size} bytes)`);
    const end = Math.min(offset + length, s.size);
    const bytes = await readRawRange(vault.rawPath(s.sha256), offset, end);
    grants.noteRead(g.info.id, offset, offset + bytes.length);
    return { offset, bytes, size: s.size, sealed: s.ref };
  }

  /** Reads from the running capture's temp file, within what is both stored and named by its chunk log. */
  async function readTemp(g: CheckedRunningGrant, path: string | null, logged: number, offset: number, length: number): Promise<RunningRawPage> {
    if (path === null) {
      if (offset > 0) throw new BridgeError('bad-request', `offset ${offset} is past the 0 bytes of ${g.stream} stored so far`);
      return { offset, bytes: new Uint8Array(0), size: 0, sealed: null };
    }
    // tmp/ itself must be the vault's own directory (O_NOFOLLOW guards only the file's name).
    const dir = await lstat(vault.layout.tmpDir).catch(() => null);
    if (!dir?.isDirectory()) throw new BridgeError('forbidden', "the vault's tmp/ is not a plain directory: raw bytes of running captures are not read");
    let fd: number;
    try {
      // Non-blocking: a FIFO planted under the name must not hold main's thread; it is refused below.
      fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT') throw new BridgeError('unavailable', `the raw bytes of ${g.stream} are being sealed; ask again`);
      if (code === 'ELOOP') throw new BridgeError('forbidden', `the temp file of ${g.stream} is a symbolic link: not read`);
      throw err;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      const uid = process.getuid?.();
      if (!st.isFile() || st.nlink !== 1n || (uid !== undefined && st.uid !== BigInt(uid))) {
        throw new BridgeError('forbidden', `the temp file of ${g.stream} is not the capture's own plain file: not read`);
      }
      const key = `${g.recordId}:${g.stream}`;
      const pin = pinned.get(key);
      if (pin && (pin.dev !== st.dev || pin.ino !== st.ino || pin.born !== st.birthtimeNs || st.size < pin.size)) {
        throw new BridgeError('forbidden', `the temp file of ${g.stream} was replaced or shortened since it was first read: not read`);
      }
      pinned.delete(key);
      pinned.set(key, { dev: st.dev, ino: st.ino, born: st.birthtimeNs, size: st.size });
      while (pinned.size > MAX_PINNED) pinned.delete(pinned.keys().next().value as string);
      const size = Math.min(Number(st.size), logged);
      if (offset > size) throw new BridgeError('bad-request', `offset ${offset} is past the ${size} bytes of ${g.stream} stored so far`);
      const end = Math.min(offset + length, size, offset + MAX_RAW_READ);
      const bytes = new Uint8Array(end - offset);
      const got = readUpTo(fd, bytes, 0, bytes.length, offset);
      grants.noteRead(g.info.id, offset, offset + got);
      return { offset, bytes: got === bytes.length ? bytes : bytes.slice(0, got), size, sealed: null };
    } finally {
      closeSync(fd);
    }
  }

  return {
    /** `readRunningRaw` of window `windowId` under the running grant `g` (checked by the dispatcher). */
    async read(g: CheckedRunningGrant, offset: number, length: number): Promise<RunningRawPage> {
      if (g.sealed) return readSealed(g, offset, length);
      let st = await follow.rawState(g.recordId, g.stream);
      let now = await settle(g, st);
      if (now.sealed) return readSealed(now, offset, length);
      if (st.state === 'running' && st.foreign) throw new BridgeError('forbidden', `the log of capture ${g.recordId} names a temp file another process wrote: not read`);
      try {
        return await readTemp(now, st.state === 'running' ? st.path : null, st.state === 'running' ? st.logged : 0, offset, length);
      } catch (err) {
        // Sealed between the state and the open (the temp file was published): read the sealed file.
        if (!(err instanceof BridgeError && err.code === 'unavailable')) throw err;
        st = await follow.rawState(g.recordId, g.stream);
        now = await settle(now, st);
        if (now.sealed) return readSealed(now, offset, length);
        throw err;
      }
    },

    /**
     * A follow update of capture `id` said it is no longer running: its running grants go on over
     * the sealed artifact, or end (so the viewer hears of it even when it reads nothing).
     */
    async captureEnded(id: string, state: FollowUpdate['state']): Promise<void> {
      if (state === 'running') return;
      for (const g of grants.runningGrants(id)) {
        await settle(g, await follow.rawState(id, g.stream)).catch((err: unknown) => {
          if (!(err instanceof BridgeError)) throw err;
        });
      }
    },
  };
}
