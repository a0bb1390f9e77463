import type { z } from 'zod';
import { writeFileAtomic } from '../../files/fs-atomic';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import type { AuditDetails, AuditLine } from '../../audit';
import type { Vault } from '../../vault';
import { BRIDGE_ARGS, BRIDGE_METHODS, MAX_RAW_READ, type BridgeArgs, type MethodSpec, type BridgeMethod, type BridgeResult, type BridgeWire, type GrantMethod, type WindowKind } from '../../../shared/bridge/contract';
import type { AuditView, RecordSummary } from '../../../shared/bridge/types';
import type { CheckedGrant, CheckedRunningGrant, GrantStore } from '../grants/grants';
import type { PromptBroker } from '../prompt/prompts';
import type { RequestStore } from '../requests';
import { reviewHandlers } from './review';
import { hexDumpLines } from '../raw/hex-dump';
import { readRawRange } from '../raw/read';
import type { VaultView } from '../vault-view/view';
import type { ArtifactPort } from './artifact-port';
import type { FollowService } from '../follow/follow';
import type { RunningRawReader } from '../follow/running-raw';
import { auditText, BridgeError, errorWire } from './errors';
import { firstNotInertYielding } from './inert';

/**
 * Who is calling, as main sees it (never as the caller claims): Electron main fills this from
 * the IPC event (`BrowserWindow.fromWebContents(event.sender)`, `event.senderFrame`), the e2e
 * harness from the Playwright binding's source page.
 */
export interface Caller {
  /** Id of the window the sending frame belongs to, or null when it belongs to none main knows. */
  readonly windowId: number | null;
  /** Origin of the sending frame (`airlock://app`), or '' when unknown. */
  readonly origin: string;
  /** The sender is the window's top frame (not an iframe). */
  readonly mainFrame: boolean;
}

/** Which windows main created and for what. */
export interface WindowRegistry {
  kindOf(windowId: number): WindowKind | null;
}

export interface AuditPort {
  append(action: string, details: AuditDetails): Promise<unknown>;
  list(): Promise<AuditLine[]>;
}

/** Everything the dispatcher delegates to. Platform pieces (dialogs, clipboard) are injected. */
export interface DispatcherDeps {
  readonly vault: Vault;
  readonly view: VaultView;
  readonly grants: GrantStore;
  readonly prompts: PromptBroker;
  /** The review queue (agents' requests for bounded extracts). */
  readonly requests: RequestStore;
  readonly audit: AuditPort;
  readonly windows: WindowRegistry;
  /** Expected frame origins: the viewer's (`airlock://app`) and the prompt's (`airlock://prompt`). */
  readonly origins: { readonly viewer: string; readonly prompt: string };
  /** The artifact service: span index, text pages, searches, bookmarks, screen, chunk log. */
  readonly artifact: ArtifactPort;
  /** Running captures: listed, followed as they grow, their screen on what has arrived. */
  readonly follow: FollowService;
  /** Raw bytes of running captures under a grant, and their grants' ends. */
  readonly runningRaw: RunningRawReader;
  /** Main's own file dialog for "Open file…"; null when the human cancelled. */
  chooseFile(windowId: number): Promise<{ path: string; timingPath?: string } | null>;
  importFile(path: string, options: { timingPath?: string }): Promise<{ record: { id: string } }>;
  /** Main's own save dialog; null when cancelled. */
  chooseSavePath(windowId: number, suggestedName: string): Promise<string | null>;
  writeClipboard(text: string): Promise<void> | void;
  /** Refusal audit budget per window per minute (default 60); the rest are counted, not written. */
  readonly refusalBudget?: number;
  readonly now?: () => number;
}

/**
 * The handler of method M: its validated arguments in, its result out, both as the bridge table
 * says (a handler answering another shape does not compile). A grant method's handler also gets
 * its grant, checked by the dispatcher to be live and bound to the calling window.
 */
type Handler<M extends BridgeMethod> = (windowId: number, args: BridgeArgs<M>, grant: M extends 'readRunningRaw' ? CheckedRunningGrant : M extends GrantMethod ? CheckedGrant : undefined) => Promise<BridgeResult<M>>;
type Handlers = { readonly [M in BridgeMethod]: Handler<M> };

/** The one dispatcher behind `window.airlock` (Electron IPC) and the e2e harness's bindings. */
export interface BridgeDispatcher {
  /** A `window.airlock` call from a viewer window. Never throws: failures come back as wire errors. */
  call(caller: Caller, method: unknown, args: unknown): Promise<BridgeWire<unknown>>;
  /** A `window.airlockPrompt` call from a prompt window. */
  callPrompt(caller: Caller, method: unknown, args: unknown): Promise<BridgeWire<unknown>>;
  /** A window closed: its running searches end. */
  windowClosed(windowId: number): void;
}

/**
 * Creates the dispatcher. Order of checks for every call: (1) the sender — a window main created
 * for this channel, its top frame, the app's own origin; (2) the method name — an own key of the
 * contract; (3) the arguments — the contract's zod schema; (4) the method's own checks (grants).
 * Every refusal returns a one-line error and writes a `bridge.refused` audit entry (budgeted per
 * window so a hostile renderer cannot flood the log); no refusal carries an artifact byte.
 */
export function createDispatcher(deps: DispatcherDeps): BridgeDispatcher {
  const { view, grants, prompts, audit } = deps;
  const now = deps.now ?? Date.now;
  const budget = deps.refusalBudget ?? 60;
  const refusals = new Map<number | string, { minute: number; written: number; suppressed: number }>();
  /** Each window's running searches (`<window>:text`, `<window>:raw`): a new one ends the one before. */
  const searches = new Map<string, AbortController>();
  const search = async <T>(key: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    searches.get(key)?.abort();
    const ac = new AbortController();
    searches.set(key, ac);
    try {
      return await run(ac.signal);
    } finally {
      if (searches.get(key) === ac) searches.delete(key);
    }
  };
  const cancelSearches = (w: number): void => {
    for (const kind of ['text', 'raw']) searches.get(`${w}:${kind}`)?.abort();
  };

  const artifact = deps.artifact;
  /** The artifact must be in this vault before anything touches it. */
  const inVault = async (ref: string): Promise<ArtifactPort> => {
    await view.locate(ref);
    return artifact;
  };

  const handlers: Handlers = {
    getVaultInfo: (w) => view.info(w),
    listRecords: () => view.list(),
    openFile: async (w) => {
      const choice = await deps.chooseFile(w);
      if (!choice) return null;
      let id: string;
      try {
        id = (await deps.importFile(choice.path, { timingPath: choice.timingPath })).record.id;
      } catch (err) {
        throw new BridgeError('bad-request', `could not import the file: ${terminalSafeLine(err instanceof Error ? err.message : String(err))}`);
      }
      const list: RecordSummary[] = await view.list();
      return list.find((r) => r.id === id) ?? null;
    },
    listRunning: () => deps.follow.list(),
    followRunning: async (_w, [id, stream, from, buckets]) => {
      const update = await deps.follow.follow(id, stream, from, buckets);
      // Grants on its raw bytes go on over the sealed record, or end with it.
      await deps.runningRaw.captureEnded(id, update.state);
      return update;
    },
    getRunningScreen: (w, [id, stream, size, upTo]) => deps.follow.screen(id, stream, size, upTo, w),
    cancelRunningScreen: (w, [id, stream, size, upTo]) => deps.follow.cancelScreen(id, stream, size, upTo, w),
    getReport: async (_w, [ref]) => view.report(ref),
    getChunkLog: async (_w, [recordId]) => artifact.getChunkLog(recordId),
    startIndex: async (_w, [ref]) => (await inVault(ref)).startIndex(ref),
    getIndexStatus: async (_w, [ref]) => (await inVault(ref)).getIndexStatus(ref),
    cancelIndex: async (_w, [ref]) => (await inVault(ref)).cancelIndex(ref),
    getSpans: async (_w, [ref, offset, length]) => (await inVault(ref)).getSpans(ref, offset, length),
    findSpan: async (_w, [ref, from, direction, filter]) => (await inVault(ref)).findSpan(ref, from, direction, filter),
    getMinimap: async (_w, [ref, buckets]) => (await inVault(ref)).getMinimap(ref, buckets),
    getTextLines: async (_w, [ref, firstLine, count]) => (await inVault(ref)).getTextLines(ref, firstLine, count),
    getSecrets: async (_w, [ref, offset, length]) => (await inVault(ref)).getSecrets(ref, offset, length),
    textPositionOf: async (_w, [ref, rawOffset]) => (await inVault(ref)).textPositionOf(ref, rawOffset),
    listBookmarks: async (_w, [ref]) => (await inVault(ref)).listBookmarks(ref),
    saveBookmark: async (_w, [ref, bookmark]) => (await inVault(ref)).saveBookmark(ref, bookmark),
    deleteBookmark: async (_w, [ref, id]) => (await inVault(ref)).deleteBookmark(ref, id),
    searchText: async (w, [ref, query, options]) => {
      const svc = await inVault(ref);
      return search(`${w}:text`, (signal) => svc.searchText(ref, query, options, signal));
    },
    cancelSearch: async (w) => cancelSearches(w),
    getScreen: async (w, [ref, size]) => (await inVault(ref)).getScreen(ref, size, w),
    cancelScreen: async (w, [ref, size]) => (await inVault(ref)).cancelScreen(ref, size, w),
    requestRawAccess: (w, [ref, options]) => prompts.request(w, ref, options),
    requestRunningRawAccess: (w, [id, stream, options]) => prompts.requestRunning(w, id, stream, options),
    listGrants: async (w) => grants.list(w),
    revokeGrant: async (w, [grantId]) => {
      await grants.revoke(grantId, w);
    },
    readRaw: async (w, [grantId, offset, length]) => {
      const { sha256, start, end } = grants.clampRead(grantId, w, offset, length);
      const bytes = await readRawRange(deps.vault.rawPath(sha256), start, end);
      grants.noteRead(grantId, start, start + bytes.length);
      return { offset: start, bytes };
    },
    readRunningRaw: async (_w, [, offset, length], g) => deps.runningRaw.read(g, offset, length),
    searchRaw: async (w, [grantId, query], g) => {
      const hits = await search(`${w}:raw`, (signal) => artifact.searchRaw(g.ref, g.info.range, query, signal));
      grants.noteSearch(grantId);
      return hits;
    },
    getSpanValues: async (_w, [grantId, offset, length], g) => {
      const range = g.info.range ?? ([0, g.size] as const);
      const values = await artifact.spanValues(g.ref, offset, length, range);
      // Values are raw content: the read is recorded as one of the spans they came from.
      if (values.length > 0) grants.noteRead(grantId, Math.max(offset, range[0]), Math.min(offset + length, range[1]));
      return values;
    },
    getSecretValues: async (_w, [grantId, offset, length], g) => {
      const range = g.info.range ?? ([0, g.size] as const);
      const values = await artifact.secretValues(g.ref, offset, length, range);
      // Each value is raw content: recorded as a read of the bytes it came from.
      for (const v of values) grants.noteRead(grantId, v.offset, v.offset + v.length);
      return values;
    },
    getPayloads: async (_w, [grantId, offset, length], g) => {
      const range = g.info.range ?? ([0, g.size] as const);
      const page = await artifact.payloads(g.ref, offset, length, range);
      // Decoded payloads are raw content: each is recorded as a read of the bytes it came from.
      for (const p of page.payloads) grants.noteRead(grantId, p.offset, p.offset + p.length);
      return page;
    },
    copyText: async (_w, [kind, text]) => {
      await assertInert(text, 'copy');
      await deps.writeClipboard(text);
      await audit.append('text.copied', { kind, chars: text.length });
    },
    exportText: async (w, [kind, suggestedName, text]) => {
      await assertInert(text, 'export');
      const safeName = suggestedName.replace(/[^A-Za-z0-9._ -]/g, '_').replace(/^\.+/, '').slice(0, 120) || 'airlock-export.txt';
      const path = await deps.chooseSavePath(w, safeName);
      if (!path) return { saved: false, name: null };
      await writeFileAtomic(path, text, { mode: 0o600 });
      const name = path.split(/[\\/]/).pop() ?? safeName;
      await audit.append('text.exported', { kind, chars: text.length, name: auditText(name, 120) });
      return { saved: true, name: name.replace(/[^\x20-\x7e]/g, '?') };
    },
    exportHexDump: async (w, [grantId, options], g) => {
      const bounds: [number, number] = g.info.range ? [g.info.range[0], Math.min(g.info.range[1], g.size)] : [0, g.size];
      const [start, end] = options.range ?? bounds;
      if (start < bounds[0] || end > bounds[1]) throw new BridgeError('forbidden', `bytes [${start}, ${end}) are outside the granted range [${bounds[0]}, ${bounds[1]})`);
      const scope = options.range ? 'selection' : g.info.range ? 'granted-range' : 'artifact';
      const loc = await view.locate(g.ref);
      const what = scope === 'selection' ? `bytes 0x${start.toString(16)}-0x${(end - 1).toString(16)}` : scope === 'artifact' ? 'whole artifact' : 'granted range';
      const suggested = `airlock-${g.sha256.slice(0, 12)}-${scope === 'selection' ? start.toString(16) : scope}.hexdump.txt`;
      const path = await deps.chooseSavePath(w, suggested);
      if (!path) return { saved: false, name: null, scope, range: [start, end] };
      const header = [`${loc.summary.title} (${loc.stream}) ${g.ref}`, `${what}: offset 0x${start.toString(16)}, ${end - start} bytes`];
      await writeFileAtomic(path, hexDumpLines(deps.vault.rawPath(g.sha256), start, end, bounds, g.size, header.map((h) => terminalSafeLine(h))), { mode: 0o600 });
      grants.noteRead(grantId, start, end);
      const name = path.split(/[\\/]/).pop() ?? suggested;
      await audit.append('text.exported', { kind: 'hex-dump', scope, range: [start, end], bytes: end - start, grant: grantId, sha256: g.sha256, name: auditText(name, 120) });
      return { saved: true, name: name.replace(/[^\x20-\x7e]/g, '?'), scope, range: [start, end] };
    },
    ...reviewHandlers({ requests: deps.requests, prompts, view }),
    listAudit: async (_w, [limit]) => {
      const lines = await audit.list();
      const out: AuditView[] = [];
      for (const l of lines.slice(-limit)) if ('entry' in l) out.push(auditView(l.entry as unknown as Record<string, unknown>));
      return out.reverse();
    },
    getPrompt: async (w) => prompts.getPrompt(w),
    answerPrompt: (w, [answer]) => prompts.answer(w, answer),
  };

  async function refuse(channel: string, caller: Caller, method: string, err: BridgeError): Promise<void> {
    // Not a refusal: an index still building or a worker restarting ('ask again').
    if (err.code === 'unavailable') return;
    const key = caller.windowId ?? 'unknown';
    const minute = Math.floor(now() / 60_000);
    let r = refusals.get(key);
    if (!r || r.minute !== minute) {
      const suppressed = r?.suppressed ?? 0;
      r = { minute, written: 0, suppressed: 0 };
      refusals.set(key, r);
      if (suppressed > 0) await audit.append('bridge.refused', { channel, window: caller.windowId ?? -1, suppressed }).catch(() => undefined);
    }
    if (r.written >= budget) {
      r.suppressed++;
      return;
    }
    r.written++;
    await audit.append('bridge.refused', {
      channel,
      method: auditText(method, 64),
      code: err.code,
      window: caller.windowId ?? -1,
      origin: auditText(caller.origin, 100),
      why: auditText(err.message, 240),
    }).catch(() => undefined);
  }

  async function run(channel: WindowKind, caller: Caller, method: unknown, args: unknown): Promise<BridgeWire<unknown>> {
    const name = typeof method === 'string' ? method.slice(0, 64) : `<${typeof method}>`;
    try {
      checkSender(channel, caller);
      if (typeof method !== 'string' || !Object.hasOwn(BRIDGE_METHODS, method) || BRIDGE_METHODS[method as BridgeMethod].window !== channel) {
        throw new BridgeError('bad-request', `unknown method ${auditText(name, 64)} on the ${channel === 'viewer' ? 'window.airlock' : 'window.airlockPrompt'} bridge`);
      }
      const m = method as BridgeMethod;
      if (!Array.isArray(args)) throw new BridgeError('bad-request', `${name}: arguments must be a list`);
      if ((m === 'readRaw' || m === 'readRunningRaw') && typeof args[2] === 'number' && args[2] > MAX_RAW_READ) {
        throw new BridgeError('too-large', `${m}: at most ${MAX_RAW_READ} bytes a call (asked for ${args[2]})`);
      }
      const parsed = BRIDGE_ARGS[m].safeParse(args);
      if (!parsed.success) throw new BridgeError('bad-request', `${name}: ${describeIssue(parsed.error)}`);
      const windowId = caller.windowId!;
      // A grant method's first argument is a grant id (its schema says so): the grant must be live,
      // this window's and of the kind the method reads (a sealed artifact or a running capture).
      const spec: MethodSpec = BRIDGE_METHODS[m];
      const grantId = parsed.data[0] as string;
      const grant = !spec.grant ? undefined : spec.covers === 'running' ? grants.checkRunning(grantId, windowId) : grants.check(grantId, windowId);
      // One call site for every method: TypeScript cannot pair a union of handlers with a union of
      // argument lists, so the pairing the table guarantees is asserted here once.
      const handler = handlers[m] as (windowId: number, args: unknown, grant: CheckedGrant | CheckedRunningGrant | undefined) => Promise<unknown>;
      const value = await handler(windowId, parsed.data, grant);
      return { ok: true, value: value ?? null };
    } catch (err) {
      const bridgeErr = asBridgeError(err);
      if (bridgeErr) {
        await refuse(channel, caller, name, bridgeErr);
        return errorWire(bridgeErr);
      }
      console.error(`airlock: ${channel} ${name} failed:`, err);
      return errorWire(err);
    }
  }

  function checkSender(channel: WindowKind, caller: Caller): void {
    const expected = channel === 'viewer' ? deps.origins.viewer : deps.origins.prompt;
    const kind = caller.windowId === null ? null : deps.windows.kindOf(caller.windowId);
    if (kind !== channel) {
      throw new BridgeError('forbidden', channel === 'viewer' ? 'calls to window.airlock are accepted only from the app\'s viewer windows' : 'prompt answers are accepted only from main\'s prompt window');
    }
    if (!caller.mainFrame) throw new BridgeError('forbidden', 'calls from a subframe are refused');
    if (caller.origin !== expected) throw new BridgeError('forbidden', `calls are accepted only from ${expected}`);
  }

  return {
    call: (caller, method, args) => run('viewer', caller, method, args),
    callPrompt: (caller, method, args) => run('prompt', caller, method, args),
    windowClosed: (windowId) => {
      cancelSearches(windowId);
      artifact.windowClosed(windowId);
      deps.follow.windowClosed(windowId);
    },
  };
}

/** Vault and parse errors that mean "the caller asked for something wrong" become BridgeErrors. */
function asBridgeError(err: unknown): BridgeError | null {
  if (err instanceof BridgeError) return err;
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === 'RequestError') {
    const code = e.code === 'not-found' ? 'not-found' : e.code === 'too-large' ? 'too-large' : 'bad-request';
    return new BridgeError(code, e.message ?? 'the review queue refused');
  }
  if (e?.name === 'VaultError') {
    if (e.code === 'not-found') return new BridgeError('not-found', e.message ?? 'not found');
    if (e.code === 'bad-ref' || e.code === 'bad-id') return new BridgeError('bad-request', e.message ?? 'bad reference');
  }
  return null;
}

async function assertInert(text: string, what: string): Promise<void> {
  const at = await firstNotInertYielding(text);
  if (at >= 0) throw new BridgeError('bad-request', `${what} refused: the text holds a control or invisible character at index ${at}`);
}

/** The first schema issue as `argument N: message` (never the received value). */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid arguments';
  const [first, ...rest] = issue.path;
  const where = typeof first === 'number' ? `argument ${first + 1}${rest.length ? ` (${rest.join('.')})` : ''}` : 'arguments';
  return `${where}: ${issue.message}`;
}

function auditView(e: Record<string, unknown>): AuditView {
  const details: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(e)) {
    if (['seq', 'ts', 'actor', 'action', 'prev', 'hash'].includes(k)) continue;
    details[k] = v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v);
  }
  const actor = e.actor as { user?: string; host?: string } | undefined;
  return { seq: Number(e.seq), ts: String(e.ts), action: String(e.action), actor: `${actor?.user ?? '?'}@${actor?.host ?? '?'}`, details };
}
