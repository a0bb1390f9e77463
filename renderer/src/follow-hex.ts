// The follow view's hex pane: raw access to the followed stream of a running capture, asked for in
// main's prompt (requestRunningRawAccess), then its bytes as they arrive (readRunningRaw), one
// page at a time, only the pages the visible rows need and the growing last one. Raw bytes live in
// this module's page cache and nowhere else: the grant ending (revoked, expired, the capture
// interrupted, the view closed) clears it. Once the capture is sealed main carries the grant on to
// the sealed artifact, and the workspace that opens it adopts the grant.
import { create } from 'zustand';
import type { GrantInfo } from '../../shared/bridge/types';
import { ROW_BYTES } from './actions';
import { bridge, errorCode, errorText } from './bridge';
import { PAGE_SIZE, PageCache, pageOf } from './lib/page-cache';
import { maxTop, rowCount } from './lib/scroll';

/** Time between reads of the growing end while granted (main reads the capture's log at most every 100 ms). */
export const HEX_POLL_MS = 300;
/** How often main is asked whether the grant still stands (it may be revoked from the vault browser). */
const GRANT_CHECK_MS = 5000;

export type FollowHexPhase = 'none' | 'asking' | 'granted' | 'denied' | 'ended';

export interface FollowHexState {
  phase: FollowHexPhase;
  grant: GrantInfo | null;
  /** Why access was denied or ended. */
  why: string | null;
  /** The capture and stream the pane is for (a grant covers one stream). */
  target: { id: string; stream: string } | null;
  /** Raw bytes of the stream readable now (grows). */
  size: number;
  /** Set once main says the capture was sealed: the artifact the grant now covers. */
  sealed: string | null;
  /** First visible row, and how many rows are visible. */
  top: number;
  visible: number;
  /** Keep the last rows in view (off once the user scrolls up, on again at the end). */
  autoscroll: boolean;
  /** Bumped when cached bytes change, so the rows render again. */
  version: number;
  /** Clock for the grant's countdown. */
  now: number;
}

export const initialFollowHex = (): FollowHexState => ({
  phase: 'none', grant: null, why: null, target: null, size: 0, sealed: null, top: 0, visible: 20, autoscroll: true, version: 0, now: Date.now(),
});

export const useFollowHex = create<FollowHexState>(() => initialFollowHex());

/** The raw pages of the followed stream (the last one may be short: it is read again as it grows). */
const pages = new PageCache();
let timer: ReturnType<typeof setTimeout> | null = null;
/** Bumped when the pane is reset: a late answer of an earlier grant or stream is dropped. */
let generation = 0;
let lastCheck = 0;
let reading = false;

export function followHexPages(): PageCache {
  return pages;
}

/**
 * The pane is for `stream` of capture `id` (the follow view opened or switched stream): cached
 * bytes are dropped, and a grant this window still holds on that stream (main's list) is adopted.
 */
export function resetFollowHex(target: { id: string; stream: string } | null): void {
  stop();
  generation++;
  pages.clear();
  useFollowHex.setState({ ...initialFollowHex(), target }, true);
  if (target) void adopt(generation, target);
}

async function adopt(gen: number, target: { id: string; stream: string }): Promise<void> {
  try {
    const live = (await bridge().listGrants()).find((g) => g.running?.recordId === target.id && g.running.stream === target.stream && g.ref === null && g.expiresAt > Date.now());
    if (live && gen === generation && useFollowHex.getState().phase === 'none') granted(live);
  } catch {
    // nothing to adopt
  }
}

/** "Request raw access…": main's prompt window asks the human. */
export async function requestFollowRaw(): Promise<void> {
  const { target, phase } = useFollowHex.getState();
  if (!target || phase === 'asking' || phase === 'granted') return;
  const gen = generation;
  useFollowHex.setState({ phase: 'asking', why: null });
  try {
    const outcome = await bridge().requestRunningRawAccess(target.id, target.stream, {});
    if (gen !== generation) return;
    if (outcome.state === 'granted') granted(outcome.grant);
    else useFollowHex.setState({ phase: 'denied', why: outcome.why });
  } catch (e) {
    if (gen === generation) useFollowHex.setState({ phase: 'denied', why: errorText(e) });
  }
}

function granted(grant: GrantInfo): void {
  useFollowHex.setState({ phase: 'granted', grant, why: null, now: Date.now(), autoscroll: true });
  void poll(generation);
}

/** Revoke: main ends the grant; the bytes leave memory. */
export async function revokeFollowRaw(): Promise<void> {
  const grant = useFollowHex.getState().grant;
  end('You revoked raw access. Cached bytes were dropped.');
  if (grant) await bridge().revokeGrant(grant.id).catch(() => undefined);
}

/** The grant ended (revoked, expired, the capture interrupted): every cached byte is dropped. */
function end(why: string): void {
  stop();
  generation++;
  pages.clear();
  const { target } = useFollowHex.getState();
  useFollowHex.setState((s) => ({ ...initialFollowHex(), target, phase: 'ended', why, version: s.version + 1 }), true);
}

function stop(): void {
  if (timer) clearTimeout(timer);
  timer = null;
}

/** The rows moved (the user scrolled, or the list reports where it is). Scrolling up stops autoscroll; the end starts it again. */
export function followHexMoved(top: number): void {
  const s = useFollowHex.getState();
  const last = maxTop(rowCount(s.size, ROW_BYTES), s.visible);
  const autoscroll = top >= last ? true : top < s.top ? false : s.autoscroll;
  if (top !== s.top || autoscroll !== s.autoscroll) useFollowHex.setState({ top, autoscroll });
  void fill(generation);
}

export function followHexVisible(rows: number): void {
  if (rows !== useFollowHex.getState().visible) useFollowHex.setState({ visible: rows });
  void fill(generation);
}

/** Follow the end again (the "new bytes" button, End). */
export function followHexEnd(): void {
  const s = useFollowHex.getState();
  useFollowHex.setState({ autoscroll: true, top: maxTop(rowCount(s.size, ROW_BYTES), s.visible) });
  void fill(generation);
}

/** Called every second by the pane: the countdown, expiry, and now and then whether main still has the grant. */
export function tickFollowHex(now = Date.now()): void {
  const { grant } = useFollowHex.getState();
  useFollowHex.setState({ now });
  if (!grant) return;
  if (grant.expiresAt <= now) {
    end('Raw access expired. Cached bytes were dropped.');
    return;
  }
  if (now - lastCheck >= GRANT_CHECK_MS) {
    lastCheck = now;
    const gen = generation;
    void bridge().listGrants().then((live) => {
      if (gen === generation && !live.some((g) => g.id === grant.id)) end('Raw access was revoked in main. Cached bytes were dropped.');
    }).catch(() => undefined);
  }
}

/** Reads the growing end, then the pages the visible rows need; again every HEX_POLL_MS while granted. */
async function poll(gen: number): Promise<void> {
  stop();
  const s = useFollowHex.getState();
  if (gen !== generation || !s.grant) return;
  // The page the end is in: its answer says how far the stream has grown.
  if ((await readPage(gen, pageOf(s.size))) === 'ended' || gen !== generation) return;
  await fill(gen);
  if (gen !== generation) return;
  timer = setTimeout(() => void poll(gen), HEX_POLL_MS);
}

/** Reads the pages the visible rows need that are missing or short of the stream's size. */
async function fill(gen: number): Promise<void> {
  if (reading) return;
  reading = true;
  try {
    for (;;) {
      const s = useFollowHex.getState();
      if (gen !== generation || !s.grant) return;
      const first = s.top * ROW_BYTES;
      const end = Math.min(s.size, (s.top + s.visible + 1) * ROW_BYTES);
      let want = -1;
      for (let p = pageOf(first); p * PAGE_SIZE < end; p++) {
        const have = pages.peek(p);
        if (!have || (have.length < PAGE_SIZE && p * PAGE_SIZE + have.length < s.size)) {
          want = p;
          break;
        }
      }
      if (want < 0 || (await readPage(gen, want)) !== 'read') return;
    }
  } finally {
    reading = false;
  }
}

/** Reads page `index`: 'read', 'retry' (main asks to ask again, or another error it showed), or 'ended' (the grant ended, or the pane was reset). */
async function readPage(gen: number, index: number): Promise<'read' | 'retry' | 'ended'> {
  const grant = useFollowHex.getState().grant;
  if (!grant) return 'ended';
  try {
    const page = await bridge().readRunningRaw(grant.id, index * PAGE_SIZE, PAGE_SIZE);
    if (gen !== generation) return 'ended';
    if (page.bytes.length > 0) {
      // A longer copy of a short last page replaces it: the shorter copy is zeroed first.
      pages.peek(index)?.fill(0);
      pages.set(index, page.bytes);
    }
    useFollowHex.setState((s) => {
      const size = Math.max(s.size, page.size);
      const top = s.autoscroll ? maxTop(rowCount(size, ROW_BYTES), s.visible) : s.top;
      return { size, top, sealed: page.sealed ?? s.sealed, version: s.version + 1, why: null };
    });
    return 'read';
  } catch (e) {
    if (gen !== generation) return 'ended';
    const code = errorCode(e);
    if (code === 'no-grant' || code === 'expired' || code === 'forbidden') {
      end(`${errorText(e).replace(/^\[[a-z-]+\]\s*/, '')} Cached bytes were dropped.`);
      return 'ended';
    }
    // 'unavailable' (being sealed this moment) and the like: asked again on the next poll.
    if (code !== 'unavailable') useFollowHex.setState({ why: errorText(e) });
    return 'retry';
  }
}
