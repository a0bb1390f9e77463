// Following running captures for the viewer (`listRunning`, `followRunning`, `getRunningScreen`):
// a capture's record grows under `running/<id>/` (app/vault/running.ts) until it is sealed. Each
// followed capture's log is read on from where the last read stopped, its text from where the
// caller has it, and its raw bytes are counted (removal counts, minimap) by a scan in a worker
// thread that goes on from where it stopped (scan.ts): every byte is read once, whatever the
// number of polls. Polls faster than `minIntervalMs` are answered from what was read.
//
// What leaves here is sanitized text (the capture's own, as redacted and stored), counts and
// offsets: never a raw byte. Stored text that is not inert (a tampered file) is refused, not shown.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../../../shared/parser';
import { firstNotInert } from '../../../shared/sanitize/inert';
import { MAX_FOLLOW_TEXT } from '../../../shared/bridge/limits';
import type { FollowUpdate, Minimap, RunningSummary, ScreenStatus } from '../../../shared/bridge/types';
import { parseRunningRow } from '../../capture/running-record';
import { completeUtf8Prefix } from '../../capture/text-window';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { formatRef, type RunningHandle, type RunningMeta, type Vault } from '../../vault';
import { isRawTempName, rawTempOwner } from '../../vault/raw-writer';
import type { IndexSanitizerOptions } from '../artifact/format';
import { resolveWorkerScript } from '../artifact/worker-script';
import { BridgeError } from '../bridge/errors';
import { ScreenJobs } from '../screen/jobs';
import { redactScreenStatus } from '../screen/redact';
import { secretsPolicy } from '../artifact/build-secrets';
import { vaultSecretsSetup } from '../artifact/secrets-setup';
import { removalSummary } from '../vault-view/view';
import { ScanClient } from './scan-client';
import type { ScanSnapshot } from './scan';

export interface FollowServiceOptions {
  readonly vault: Vault;
  /** Scans and screen runs in this thread (tests). */
  readonly inline?: boolean;
  readonly workerScript?: string;
  readonly screenWorkerScript?: string;
  readonly screenBudgetMs?: number;
  /** Least time between two reads of one capture's log (default 100 ms, what the capture's own writes lag by). */
  readonly minIntervalMs?: number;
  readonly now?: () => number;
}

/** Captures followed at once (each holds its files open); the least recently asked is let go. */
const MAX_TRACKED = 16;
/** A followed capture nobody asked about for this long is let go (its files closed, its scans dropped). */
const IDLE_MS = 60_000;
/** Log bytes read (and parsed, on main's thread) per poll at most: a log far ahead is caught up over a few polls. */
const MAX_LOG_READ = 1 << 20;

interface Tracked {
  readonly id: string;
  readonly handle: RunningHandle;
  readonly sanitizer: IndexSanitizerOptions;
  logNext: number;
  readonly rawBytes: Map<string, number>;
  /** Settled text each stream has made so far (its file stops at the capture's text limit). */
  readonly textMade: Map<string, number>;
  chunks: number;
  elapsedMs: number;
  /** Early text of each stream's unfinished line: where it starts in the stream's text, and its bytes. */
  readonly early: Map<string, { start: number; bytes: Buffer }>;
  readonly rawFiles: Map<string, string>;
  end: 'sealed' | 'failed' | null;
  readAt: number;
  reading: Promise<void> | null;
  usedAt: number;
  /** Each stream's last scan answer (kept when a later scan fails). */
  readonly scans: Map<string, ScanSnapshot>;
}

export type FollowService = ReturnType<typeof createFollowService>;

/**
 * Where a running capture's stream stands for reading its raw bytes under a grant (rawState):
 * running with the temp file main knows from the capture's own log (a raw temp name in the vault's
 * tmp/, or null before the capture named one; not opened here) and the bytes its chunk log names;
 * sealed as a record (the stream's digest and size, and whether it was sealed as interrupted);
 * interrupted (its Airlock is gone) or failed; or gone (no running capture and no record).
 */
export type RunningRawState =
  | { readonly state: 'running'; readonly path: string | null; readonly logged: number; readonly foreign?: true }
  | { readonly state: 'sealed'; readonly raw: { readonly sha256: string; readonly size: number } | null; readonly interrupted: boolean }
  | { readonly state: 'interrupted' | 'failed' | 'gone' };

/** What a raw-access prompt for a running capture's stream shows (describe). */
export interface RunningDescription {
  readonly summary: RunningSummary;
  /** Raw bytes of the stream the chunk log names so far. */
  readonly bytesSoFar: number;
}

export function createFollowService(o: FollowServiceOptions) {
  const { vault } = o;
  const now = o.now ?? Date.now;
  const minInterval = o.minIntervalMs ?? 100;
  const tracked = new Map<string, Tracked>();
  const opening = new Map<string, Promise<Tracked | null>>();
  const scans = new ScanClient({ script: () => resolveWorkerScript(o.workerScript), inline: o.inline === true });
  /** Screen runs on what a stream had received, by `<id>.<stream>.<bytes>`: the raw temp file they read. */
  const screenPaths = new Map<string, string>();
  const screens = new ScreenJobs({ rawPath: (key) => screenPaths.get(key) ?? '', inline: o.inline === true, budgetMs: o.screenBudgetMs, script: o.screenWorkerScript });

  /** Whether `running/<id>` is a running capture's directory (a real directory, not a link, with a record id's name). */
  async function isRunning(id: string): Promise<boolean> {
    return (await vault.runningEntries()).some((e) => e.kind === 'running' && e.name === id);
  }

  /** The followed capture `id`, opened on first use; null when there is no running capture of that id. */
  async function track(id: string): Promise<Tracked | null> {
    for (const [other, o] of tracked) if (other !== id && now() - o.usedAt > IDLE_MS) void release(other);
    const t = tracked.get(id);
    if (t) {
      tracked.delete(id);
      tracked.set(id, t);
      t.usedAt = now();
      return t;
    }
    let pending = opening.get(id);
    if (!pending) {
      pending = open(id).finally(() => opening.delete(id));
      opening.set(id, pending);
    }
    return pending;
  }

  async function open(id: string): Promise<Tracked | null> {
    if (!(await isRunning(id))) return null;
    const handle = await vault.openRunning(id).catch((err: unknown) => {
      throw new BridgeError('not-found', `running capture ${id} cannot be read: ${terminalSafeLine(err instanceof Error ? err.message : String(err)).slice(0, 200)}`);
    });
    if (!handle) return null;
    const t: Tracked = {
      id, handle, sanitizer: sanitizerOf(handle.meta), logNext: 0, rawBytes: new Map(), textMade: new Map(), chunks: 0, elapsedMs: 0, early: new Map(), rawFiles: new Map(),
      end: null, readAt: -Infinity, reading: null, usedAt: now(), scans: new Map(),
    };
    tracked.set(id, t);
    while (tracked.size > MAX_TRACKED) void release(tracked.keys().next().value as string);
    return t;
  }

  async function release(id: string): Promise<void> {
    const t = tracked.get(id);
    tracked.delete(id);
    if (!t) return;
    for (const s of t.handle.meta.streams) await scans.drop(`${id}:${s}`);
    await t.handle.close();
  }

  /** Reads the log on from where it stopped (at most once per `minInterval`; concurrent polls share a read). */
  async function refresh(t: Tracked): Promise<void> {
    if (t.reading) return t.reading;
    if (now() - t.readAt < minInterval || t.end !== null) return;
    t.reading = (async () => {
      for (let read = 0; read < MAX_LOG_READ; ) {
        const { rows, next } = await t.handle.readLog(t.logNext, Math.min(1 << 20, MAX_LOG_READ - read));
        if (next === t.logNext) break;
        read += next - t.logNext;
        t.logNext = next;
        for (const r of rows) apply(t, r);
      }
      t.readAt = now();
    })().finally(() => {
      t.reading = null;
    });
    return t.reading;
  }

  function apply(t: Tracked, r: unknown[]): void {
    const row = parseRunningRow(r);
    if (!row) return;
    switch (row[0]) {
      case 'raw':
        // The capture names its temp files once, at its start: a later row naming others is not followed.
        for (const [stream, name] of Object.entries(row[1])) if (name !== null && isRawTempName(name) && !t.rawFiles.has(stream)) t.rawFiles.set(stream, name);
        break;
      case 'c': {
        const [, , seqEnd, stream, offset, length, , , tMs, outOffset, outLength] = row;
        t.rawBytes.set(stream, Math.max(t.rawBytes.get(stream) ?? 0, offset + length));
        t.textMade.set(stream, Math.max(t.textMade.get(stream) ?? 0, outOffset + outLength));
        t.chunks = Math.max(t.chunks, seqEnd + 1);
        t.elapsedMs = Math.max(t.elapsedMs, Math.round(tMs));
        break;
      }
      case 'e': {
        const [, , stream, outOffset, text] = row;
        const e = t.early.get(stream);
        // Each early row goes on where the one before ended; one that starts elsewhere begins a new line.
        if (e && e.start + e.bytes.length === outOffset) e.bytes = Buffer.concat([e.bytes, Buffer.from(text, 'utf8')]);
        else t.early.set(stream, { start: outOffset, bytes: Buffer.from(text, 'utf8') });
        break;
      }
      case 'end':
        t.end = row[1];
        break;
    }
  }

  /** The raw temp file of a stream, checked to be a regular file (not a link), or null. */
  async function rawPath(t: Tracked, stream: string): Promise<string | null> {
    const name = t.rawFiles.get(stream);
    if (!name) return null;
    const path = join(vault.layout.tmpDir, name);
    const st = await lstat(path).catch(() => null);
    return st?.isFile() ? path : null;
  }

  async function scan(t: Tracked, stream: string, buckets: number): Promise<ScanSnapshot | null> {
    const path = await rawPath(t, stream);
    const upTo = t.rawBytes.get(stream) ?? 0;
    if (path && upTo > 0) {
      try {
        t.scans.set(stream, await scans.advance(`${t.id}:${stream}`, path, upTo, t.sanitizer, buckets));
      } catch {
        // The counts stay where they were; the next poll tries again (a restarted worker starts over).
      }
    }
    return t.scans.get(stream) ?? null;
  }

  async function sealedAs(id: string, stream: string): Promise<FollowUpdate['sealed']> {
    const record = await vault.getRecord(id);
    const raw = record.raw[stream];
    return { recordId: id, ref: raw ? formatRef(raw.sha256) : null, interrupted: record.state === 'interrupted' };
  }

  /**
   * A screen status as the viewer gets it: its text through the redaction stage with the vault's
   * policy (screen/redact.ts), as a sealed artifact's is. A running capture has no index, so no
   * secret extents: secrets are found by the rules alone (as for a sealed one whose index failed).
   */
  async function redactedScreen(status: ScreenStatus): Promise<ScreenStatus> {
    if (!status.view) return status;
    return redactScreenStatus(status, secretsPolicy(await vaultSecretsSetup(vault.root)));
  }

  /** Sanitized text of `bytes` (whole characters): refused when it is not what the sanitizer keeps. */
  function inertText(id: string, bytes: Buffer, at: number): string {
    const text = bytes.toString('utf8', 0, completeUtf8Prefix(bytes));
    const bad = firstNotInert(text);
    if (bad >= 0) throw new BridgeError('forbidden', `running capture ${id}: its stored text near byte ${at} is not sanitized text (was the file altered?); it is not shown`);
    return text;
  }

  /**
   * Where a followed capture stands. The record is stored a moment before the capture writes its
   * last text and end row: until that row (or, without one, until its directory is removed or its
   * Airlock is gone), it runs.
   */
  async function stateOf(t: Tracked): Promise<FollowUpdate['state']> {
    const gone = t.handle.owner() === 'gone';
    if (t.end === 'sealed' || ((await vault.recordExists(t.id)) && (gone || !(await isRunning(t.id))))) return 'sealed';
    if (t.end === 'failed') return 'failed';
    return gone ? 'interrupted' : 'running';
  }

  /** The sealed record's raw artifact of `stream` (null when it has none) and whether it was sealed as interrupted. */
  async function sealedRaw(id: string, stream: string): Promise<RunningRawState> {
    const record = await vault.getRecord(id);
    const raw = Object.hasOwn(record.raw, stream) ? record.raw[stream] : undefined;
    return { state: 'sealed', raw: raw ? { sha256: raw.sha256, size: raw.size } : null, interrupted: record.state === 'interrupted' };
  }

  return {
    /** The running captures, newest first (those whose record is already sealed are left out). */
    async list(): Promise<RunningSummary[]> {
      const out: RunningSummary[] = [];
      for (const e of await vault.runningEntries()) {
        if (e.kind !== 'running' || (await vault.recordExists(e.name))) continue;
        const t = tracked.get(e.name);
        const h = t?.handle ?? (await vault.openRunning(e.name).catch(() => null));
        if (!h) continue;
        try {
          const textBytes: Record<string, number> = {};
          for (const s of h.meta.streams) textBytes[s] = await h.textSize(s);
          out.push(summary(h, textBytes));
        } finally {
          if (!t) await h.close();
        }
      }
      return out.reverse();
    },

    async follow(id: string, stream: string, from: number, buckets: number): Promise<FollowUpdate> {
      const t = await track(id);
      if (!t) {
        // Sealed between the list and this call: say so, so the viewer opens the record.
        if (await vault.recordExists(id)) return { ...idle(id, stream, from), state: 'sealed', sealed: await sealedAs(id, stream) };
        throw new BridgeError('not-found', `no running capture ${id}`);
      }
      if (!t.handle.meta.streams.includes(stream)) throw new BridgeError('bad-request', `running capture ${id} has no stream ${stream}`);
      await refresh(t);
      // Stored text is redacted only when the capture ran with redaction on: other text is not shown
      // while it runs (the sealed record's view redacts it with the vault's policy).
      const redaction = t.handle.meta.redaction as { mode?: unknown } | undefined;
      const withheld = redaction?.mode !== 'on';
      const size = withheld ? 0 : await t.handle.textSize(stream);
      if (from > size) throw new BridgeError('bad-request', `followRunning: text offset ${from} is past the ${size} bytes stored`);
      const bytes = await t.handle.readText(stream, from, Math.min(MAX_FOLLOW_TEXT, size - from));
      const text = inertText(id, bytes, from);
      const next = from + Buffer.byteLength(text, 'utf8');
      let pending = '';
      const early = t.early.get(stream);
      if (next === size && early && early.start <= size && early.start + early.bytes.length > size) pending = inertText(id, early.bytes.subarray(size - early.start), size);
      const snap = await scan(t, stream, buckets);
      let state = await stateOf(t);
      const sealed = state === 'sealed' ? await sealedAs(id, stream) : null;
      // Text that settled after the end row was read is still to come: the viewer switches once it has it all.
      if (state !== 'running' && next < size) state = 'running';
      const limit = t.handle.meta.text_limit;
      const textLimit = typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= 0 ? limit : null;
      return {
        id, stream, state, sealed, text, from, next, textBytes: size, pending: state === 'running' ? pending : '',
        textWithheld: withheld,
        textPastLimit: textLimit !== null && (t.textMade.get(stream) ?? 0) > textLimit ? textLimit : null,
        rawBytes: t.rawBytes.get(stream) ?? 0, chunks: t.chunks, elapsedMs: t.elapsedMs,
        scannedBytes: snap?.scanned ?? 0, removal: removalSummary(snap?.report ?? null), minimap: snap?.minimap ?? emptyMinimap(),
      };
    },

    /**
     * Where `stream` of capture `id` stands for a raw read under a grant (see RunningRawState). The
     * temp file's name comes from the capture's own log as main read it, never from the caller.
     */
    async rawState(id: string, stream: string): Promise<RunningRawState> {
      const t = await track(id);
      if (!t) return (await vault.recordExists(id)) ? sealedRaw(id, stream) : { state: 'gone' };
      if (!t.handle.meta.streams.includes(stream)) throw new BridgeError('bad-request', `running capture ${id} has no stream ${stream}`);
      await refresh(t);
      const state = await stateOf(t);
      if (state === 'sealed') return sealedRaw(id, stream);
      if (state !== 'running') return { state };
      // The reader opens it without following a link and checks what it opened. Its name must say
      // the capture's own process wrote it (a log naming another process's temp file is refused).
      const name = t.rawFiles.get(stream);
      const owner = name ? rawTempOwner(name) : null;
      const own = owner !== null && owner.pid === t.handle.meta.owner.pid && owner.host === t.handle.meta.owner.host;
      return { state, path: name && own ? join(vault.layout.tmpDir, name) : null, logged: t.rawBytes.get(stream) ?? 0, ...(name && !own ? { foreign: true as const } : {}) };
    },

    /** What the raw-access prompt shows of a running capture's stream; null when `id` is not running. */
    async describe(id: string, stream: string): Promise<RunningDescription | null> {
      const t = await track(id);
      if (!t || !t.handle.meta.streams.includes(stream)) return null;
      await refresh(t);
      if ((await stateOf(t)) !== 'running') return null;
      const textBytes: Record<string, number> = {};
      for (const s of t.handle.meta.streams) textBytes[s] = await t.handle.textSize(s);
      return { summary: summary(t.handle, textBytes), bytesSoFar: t.rawBytes.get(stream) ?? 0 };
    },

    /** Starts (`upTo` null) or asks after (`upTo`: the run's totalBytes) a screen run on what `stream` has received. */
    async screen(id: string, stream: string, size: { cols: number; rows: number }, upTo: number | null, windowId: number): Promise<ScreenStatus> {
      const t = await track(id);
      if (!t) throw new BridgeError('not-found', `no running capture ${id}`);
      if (!t.handle.meta.streams.includes(stream)) throw new BridgeError('bad-request', `running capture ${id} has no stream ${stream}`);
      await refresh(t);
      const have = t.rawBytes.get(stream) ?? 0;
      const bytes = upTo ?? have;
      if (bytes > have) throw new BridgeError('bad-request', `getRunningScreen: ${bytes} bytes asked, ${have} received`);
      const key = `${id}.${stream}.${bytes}`;
      if (!screenPaths.has(key)) {
        const path = await rawPath(t, stream);
        if (!path) throw new BridgeError('not-found', `running capture ${id} has no raw bytes of ${stream} to read yet`);
        screenPaths.set(key, path);
        // The jobs keep the last few runs; their paths are all that is kept of the rest.
        while (screenPaths.size > 64) screenPaths.delete(screenPaths.keys().next().value as string);
      }
      return redactedScreen(screens.get(`running:${id}:${stream}`, key, bytes, size, windowId));
    },

    async cancelScreen(id: string, stream: string, size: { cols: number; rows: number }, upTo: number, windowId: number): Promise<ScreenStatus> {
      return redactedScreen(screens.cancel(`running:${id}:${stream}`, `${id}.${stream}.${upTo}`, size, windowId));
    },

    windowClosed(windowId: number): void {
      screens.windowClosed(windowId);
    },

    async close(): Promise<void> {
      for (const id of [...tracked.keys()]) await release(id);
      await scans.close();
      await screens.close();
    },
  };
}

function summary(h: RunningHandle, textBytes: Record<string, number>): RunningSummary {
  const m = h.meta;
  const str = (v: unknown, max: number): string | null => (typeof v === 'string' ? terminalSafeLine(v).slice(0, max) : null);
  const argv = Array.isArray(m.argv) ? m.argv.filter((a): a is string => typeof a === 'string').join(' ') : null;
  return {
    id: h.id,
    startedAt: str(m.started_at, 40) ?? '',
    title: str(m.command, 200) ?? (argv !== null ? terminalSafeLine(argv).slice(0, 200) : h.id),
    cwd: str(m.cwd, 500),
    streams: [...m.streams],
    state: h.owner() === 'gone' ? 'interrupted' : 'running',
    textBytes,
  };
}

/** The sanitizer options the capture runs with (meta.json's `cr` and `parser_limits`), defaults for what it lacks. */
function sanitizerOf(meta: RunningMeta): IndexSanitizerOptions {
  const l = (typeof meta.parser_limits === 'object' && meta.parser_limits !== null ? meta.parser_limits : {}) as Record<string, unknown>;
  const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : d);
  return {
    cr: meta.cr === 'overwrite' ? 'overwrite' : 'newline',
    limits: {
      maxCsiParamBytes: num(l.maxCsiParamBytes, DEFAULT_LIMITS.maxCsiParamBytes),
      maxStringBytes: num(l.maxStringBytes, DEFAULT_LIMITS.maxStringBytes),
      maxEscIntermediates: num(l.maxEscIntermediates, DEFAULT_LIMITS.maxEscIntermediates),
    },
  };
}

function emptyMinimap(): Minimap {
  return { buckets: 0, bucketBytes: 1, counts: [] };
}

function idle(id: string, stream: string, from: number): Omit<FollowUpdate, 'state' | 'sealed'> {
  return { id, stream, text: '', from, next: from, textBytes: from, pending: '', textWithheld: false, textPastLimit: null, rawBytes: 0, chunks: 0, elapsedMs: 0, scannedBytes: 0, removal: removalSummary(null), minimap: emptyMinimap() };
}
