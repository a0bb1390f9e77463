import { randomBytes } from 'node:crypto';
import type { AuditDetails } from '../../audit';
import type { ArtifactRef, GrantInfo } from '../../../shared/bridge/types';
import { auditText, BridgeError } from '../bridge/errors';

/** Default lifetime of a grant: 15 minutes. */
export const DEFAULT_GRANT_TTL_MS = 15 * 60_000;
/** Most distinct read ranges a grant's `raw.opened` entry lists (after merging neighbours). */
const MAX_LOGGED_RANGES = 32;

/** Where grant events are audited (an AuditLog, or a fake in tests). */
export interface AuditSink {
  append(action: 'raw.granted' | 'raw.revoked' | 'raw.expired' | 'raw.opened' | 'raw.continued', details: AuditDetails): Promise<unknown>;
}

/**
 * How a grant ended. `capture-interrupted` and `capture-failed`: a grant on a running capture whose
 * Airlock is gone (another process seals or removes what it left) or that failed without a record.
 */
export type GrantEnd = 'revoked' | 'expired' | 'window-closed' | 'shutdown' | 'capture-interrupted' | 'capture-failed';

/** Options of a {@link GrantStore}. */
export interface GrantStoreOptions {
  readonly audit: AuditSink;
  /** Grant lifetime; default {@link DEFAULT_GRANT_TTL_MS}. */
  readonly ttlMs?: number;
  readonly now?: () => number;
  /** Timer hooks (tests use fake timers through these or vi.useFakeTimers). */
  readonly setTimer?: (fn: () => void, ms: number) => unknown;
  readonly clearTimer?: (handle: unknown) => void;
  /** Told when a grant ends (main pushes nothing to the renderer; the renderer polls listGrants). */
  readonly onEnd?: (grant: GrantInfo, why: GrantEnd) => void;
}

/** A grant on a sealed artifact checked to be live and bound to the calling window (what a grant method's handler gets). */
export interface CheckedGrant {
  readonly info: GrantInfo;
  readonly ref: ArtifactRef;
  readonly sha256: string;
  readonly size: number;
}

/** A grant on a running capture's stream checked to be live and bound to the calling window. */
export interface CheckedRunningGrant {
  readonly info: GrantInfo;
  readonly recordId: string;
  readonly stream: string;
  /** Once the capture was sealed: the sealed artifact the grant goes on over. */
  readonly sealed: { readonly ref: ArtifactRef; readonly sha256: string; readonly size: number } | null;
}

/** A live grant plus what it has been used for (coalesced into one `raw.opened` entry). */
interface LiveGrant {
  info: GrantInfo;
  /** The sealed artifact covered: from the start, or (a running grant) once its capture was sealed. */
  artifact: { readonly ref: ArtifactRef; readonly sha256: string; readonly size: number } | null;
  /** A grant approved on a running capture's stream. */
  readonly running: { readonly recordId: string; readonly stream: string } | null;
  timer: unknown;
  reads: number;
  bytes: number;
  searches: number;
  /** Merged `[start, end)` ranges read, ascending. */
  ranges: [number, number][];
}

/**
 * Grants: permission for one window to read one artifact's raw bytes (optionally one range), or
 * one running capture's stream as it arrives and then its sealed artifact, for a bounded time. Only main creates them (the prompt broker, after a human approved); the renderer
 * can list and revoke its own grants and nothing else. Every grant ends — by revocation, expiry,
 * its window closing or the app quitting — and its end is audited together with what was read
 * (`raw.opened`: reads, bytes and merged ranges, one entry per grant rather than one per scroll).
 */
export class GrantStore {
  private readonly live = new Map<string, LiveGrant>();
  /** Ids of grants that ended, so a late call hears 'expired'/'revoked' instead of 'unknown'. */
  private readonly ended = new Map<string, { why: GrantEnd; windowId: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly options: GrantStoreOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_GRANT_TTL_MS;
    if (!Number.isSafeInteger(this.ttlMs) || this.ttlMs < 1000) throw new RangeError('grant lifetime must be at least 1000 ms');
    this.now = options.now ?? Date.now;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms).unref());
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout));
  }

  /** Lifetime of new grants in ms. */
  get lifetimeMs(): number {
    return this.ttlMs;
  }

  /**
   * Creates a grant after a human approved it (called by the prompt broker only; no bridge method
   * reaches this). Audits `raw.granted`.
   */
  async create(req: { ref: ArtifactRef; sha256: string; size: number; windowId: number; range: readonly [number, number] | null; reason: string; requestId: string }): Promise<GrantInfo> {
    const createdAt = this.now();
    const info: GrantInfo = {
      id: `g-${randomBytes(16).toString('hex')}`,
      ref: req.ref,
      running: null,
      windowId: req.windowId,
      range: req.range ? [req.range[0], req.range[1]] : null,
      reason: req.reason,
      createdAt,
      expiresAt: createdAt + this.ttlMs,
    };
    const grant: LiveGrant = { info, artifact: { ref: req.ref, sha256: req.sha256, size: req.size }, running: null, timer: null, reads: 0, bytes: 0, searches: 0, ranges: [] };
    await this.options.audit.append('raw.granted', {
      grant: info.id,
      request: req.requestId,
      sha256: req.sha256,
      size: req.size,
      window: req.windowId,
      ...(info.range ? { range: [info.range[0], info.range[1]] } : {}),
      expires_at: new Date(info.expiresAt).toISOString(),
      reason: auditText(req.reason),
    });
    return this.start(grant);
  }

  /**
   * Creates a grant on one stream of a running capture after a human approved it in the prompt
   * (the prompt broker only). Audits `raw.granted` with the record, the stream, `running: true`
   * and the bytes received at approval. Lifetime, window binding and ends are those of any grant.
   */
  async createRunning(req: { recordId: string; stream: string; size: number; windowId: number; reason: string; requestId: string }): Promise<GrantInfo> {
    const createdAt = this.now();
    const info: GrantInfo = {
      id: `g-${randomBytes(16).toString('hex')}`,
      ref: null,
      running: { recordId: req.recordId, stream: req.stream },
      windowId: req.windowId,
      range: null,
      reason: req.reason,
      createdAt,
      expiresAt: createdAt + this.ttlMs,
    };
    const grant: LiveGrant = { info, artifact: null, running: info.running, timer: null, reads: 0, bytes: 0, searches: 0, ranges: [] };
    await this.options.audit.append('raw.granted', {
      grant: info.id,
      request: req.requestId,
      record: req.recordId,
      stream: req.stream,
      running: true,
      size: req.size,
      window: req.windowId,
      expires_at: new Date(info.expiresAt).toISOString(),
      reason: auditText(req.reason),
    });
    return this.start(grant);
  }

  private start(grant: LiveGrant): GrantInfo {
    grant.timer = this.setTimer(() => void this.end(grant.info.id, 'expired'), this.ttlMs);
    this.live.set(grant.info.id, grant);
    return grant.info;
  }

  /** The live grants of one window (what `listGrants` returns). */
  list(windowId: number): GrantInfo[] {
    this.sweep();
    return [...this.live.values()].filter((g) => g.info.windowId === windowId).map((g) => g.info);
  }

  /**
   * Checks that `grantId` is live and belongs to `windowId` and returns it. Throws 'no-grant'
   * (unknown), 'expired' (ended by time), 'no-grant' (revoked, window closed) or 'forbidden'
   * (another window's grant: the caller learns nothing about it).
   */
  check(grantId: string, windowId: number): CheckedGrant {
    const grant = this.liveFor(grantId, windowId);
    if (!grant.artifact) throw new BridgeError('forbidden', `grant ${grantId} covers a running capture's stream: read it with readRunningRaw until the capture is sealed`);
    return { info: grant.info, ...grant.artifact };
  }

  /**
   * As {@link check}, for a grant approved on a running capture's stream (readRunningRaw): refuses
   * ('forbidden') a grant approved on a sealed artifact. `sealed` is set once the capture was sealed.
   */
  checkRunning(grantId: string, windowId: number): CheckedRunningGrant {
    const grant = this.liveFor(grantId, windowId);
    if (!grant.running) throw new BridgeError('forbidden', `grant ${grantId} covers a sealed artifact, not a running capture: read it with readRaw`);
    return { info: grant.info, recordId: grant.running.recordId, stream: grant.running.stream, sealed: grant.artifact };
  }

  /** The live grants on a running capture's streams whose capture is not sealed yet (for ending or continuing them). */
  runningGrants(recordId: string): CheckedRunningGrant[] {
    return [...this.live.values()].filter((g) => g.running?.recordId === recordId && g.artifact === null)
      .map((g) => ({ info: g.info, recordId, stream: g.running!.stream, sealed: null }));
  }

  /**
   * The capture a running grant covers was sealed: the grant goes on over the sealed artifact of
   * the same record and stream (the human approved that stream's bytes, and these are they, now
   * under a digest), audited as `raw.continued` with the digest. Its lifetime does not change.
   * The caller checks the record and stream; a grant that is not a running one is left alone.
   */
  async continueSealed(grantId: string, sealed: { recordId: string; stream: string; ref: ArtifactRef; sha256: string; size: number }): Promise<GrantInfo | null> {
    const g = this.live.get(grantId);
    if (!g || !g.running || g.artifact) return g?.info ?? null;
    if (g.running.recordId !== sealed.recordId || g.running.stream !== sealed.stream) throw new Error(`grant ${grantId} covers another capture or stream`);
    g.artifact = { ref: sealed.ref, sha256: sealed.sha256, size: sealed.size };
    g.info = { ...g.info, ref: sealed.ref };
    await this.options.audit.append('raw.continued', {
      grant: grantId,
      record: sealed.recordId,
      stream: sealed.stream,
      sha256: sealed.sha256,
      size: sealed.size,
      window: g.info.windowId,
    });
    return g.info;
  }

  /** Ends a running grant whose capture was interrupted or failed (nothing more will be sealed from it by its own Airlock). */
  async endRunning(grantId: string, why: 'capture-interrupted' | 'capture-failed'): Promise<void> {
    const g = this.live.get(grantId);
    if (g?.running && !g.artifact) await this.end(grantId, why);
  }

  /** The live grant `grantId` of `windowId`, or the error saying why not (see {@link check}). */
  private liveFor(grantId: string, windowId: number): LiveGrant {
    this.sweep();
    const grant = this.live.get(grantId);
    if (!grant) {
      const gone = this.ended.get(grantId);
      if (gone && gone.windowId === windowId) {
        if (gone.why === 'expired') throw new BridgeError('expired', `grant ${grantId} expired; ask for raw access again`);
        const how = gone.why === 'revoked' ? 'was revoked' : gone.why === 'capture-interrupted' ? 'ended: its capture was interrupted' : gone.why === 'capture-failed' ? 'ended: its capture failed' : 'was ended';
        throw new BridgeError('no-grant', `grant ${grantId} ${how}; ask for raw access again`);
      }
      throw new BridgeError('no-grant', `no grant ${grantId} for this window`);
    }
    if (grant.info.windowId !== windowId) throw new BridgeError('forbidden', `grant ${grantId} does not belong to this window`);
    return grant;
  }

  /**
   * Checks that `[offset, offset+length)` may be read under the grant and returns the range to
   * actually read, clamped to the grant's range and the artifact's size. Refuses an offset
   * outside the granted range ('forbidden') or past the end ('bad-request').
   */
  clampRead(grantId: string, windowId: number, offset: number, length: number): { sha256: string; start: number; end: number } {
    const g = this.check(grantId, windowId);
    const [lo, hi] = g.info.range ?? [0, g.size];
    if (offset > g.size) throw new BridgeError('bad-request', `offset ${offset} is past the end of the artifact (${g.size} bytes)`);
    if (offset < lo || (offset >= hi && !(offset === hi && hi === g.size))) {
      throw new BridgeError('forbidden', `offset ${offset} is outside the granted range [${lo}, ${hi})`);
    }
    return { sha256: g.sha256, start: offset, end: Math.min(offset + length, hi, g.size) };
  }

  /** Records a read for the grant's `raw.opened` entry (no audit write per read). */
  noteRead(grantId: string, start: number, end: number): void {
    const g = this.live.get(grantId);
    if (!g || end <= start) return;
    g.reads++;
    g.bytes += end - start;
    g.ranges = mergeRange(g.ranges, start, end);
  }

  /** Records a raw search under the grant. */
  noteSearch(grantId: string): void {
    const g = this.live.get(grantId);
    if (g) g.searches++;
  }

  /** Revokes a grant of `windowId` (the renderer's Revoke button). */
  async revoke(grantId: string, windowId: number): Promise<void> {
    this.liveFor(grantId, windowId);
    await this.end(grantId, 'revoked');
  }

  /** Ends every grant of a window that closed. */
  async endWindow(windowId: number): Promise<void> {
    for (const g of [...this.live.values()]) if (g.info.windowId === windowId) await this.end(g.info.id, 'window-closed');
  }

  /** Ends every grant (app quitting). */
  async endAll(): Promise<void> {
    for (const id of [...this.live.keys()]) await this.end(id, 'shutdown');
  }

  /** Ends grants whose time is up (timers may be late, e.g. after a suspend). */
  private sweep(): void {
    const t = this.now();
    for (const g of this.live.values()) if (g.info.expiresAt <= t) void this.end(g.info.id, 'expired');
  }

  private async end(grantId: string, why: GrantEnd): Promise<void> {
    const g = this.live.get(grantId);
    if (!g) return;
    this.live.delete(grantId);
    this.clearTimer(g.timer);
    this.ended.set(grantId, { why, windowId: g.info.windowId });
    if (this.ended.size > 10_000) this.ended.delete(this.ended.keys().next().value!);
    const base = {
      grant: grantId,
      ...(g.running ? { record: g.running.recordId, stream: g.running.stream, running: true } : {}),
      ...(g.artifact ? { sha256: g.artifact.sha256 } : {}),
      window: g.info.windowId,
    };
    if (g.reads > 0 || g.searches > 0) {
      const ranges = g.ranges.slice(0, MAX_LOGGED_RANGES).map(([a, b]) => [a, b]);
      await this.options.audit.append('raw.opened', {
        ...base,
        reads: g.reads,
        bytes: g.bytes,
        searches: g.searches,
        ranges,
        ranges_total: g.ranges.length,
      });
    }
    await this.options.audit.append(why === 'expired' ? 'raw.expired' : 'raw.revoked', {
      ...base,
      ...(why === 'expired' ? {} : { why }),
      lived_ms: this.now() - g.info.createdAt,
    });
    this.options.onEnd?.(g.info, why);
  }
}

/** Inserts `[start, end)` into sorted, disjoint ranges, merging overlaps and neighbours. */
export function mergeRange(ranges: readonly [number, number][], start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let s = start;
  let e = end;
  let placed = false;
  for (const [a, b] of ranges) {
    if (b < s) out.push([a, b]);
    else if (a > e) {
      if (!placed) {
        out.push([s, e]);
        placed = true;
      }
      out.push([a, b]);
    } else {
      s = Math.min(s, a);
      e = Math.max(e, b);
    }
  }
  if (!placed) out.push([s, e]);
  return out;
}
