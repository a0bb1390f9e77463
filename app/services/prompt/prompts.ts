import { randomBytes } from 'node:crypto';
import type { AuditDetails } from '../../audit';
import type { ArtifactRef, PromptView, RawAccessOutcome, RequestView } from '../../../shared/bridge/types';
import { auditText, BridgeError } from '../bridge/errors';
import type { GrantStore } from '../grants/grants';
import type { RunningDescription } from '../follow/follow';
import type { VaultView } from '../vault-view/view';
import { untrustedText } from './untrusted';

/** How many hex digits of the digest (of a running capture: of its record id's end) the human types to approve. */
export const CONFIRM_DIGITS = 8;
/** The `why` of an extract review the human denied in the prompt (other ends: closed, timed out). */
const HUMAN_DENIED = 'denied by the reviewer';
/** The `why` of a request withdrawn because its window closed (no back-off: the window is gone). */
const REQUESTER_CLOSED = 'the requesting window closed';
/** A prompt nobody answers is denied after this long (5 minutes). */
export const DEFAULT_PROMPT_TIMEOUT_MS = 5 * 60_000;
/**
 * Back-off after a prompt for an artifact was denied or closed unanswered (per window and
 * artifact): the k-th such end in a row makes the window wait BACKOFF_BASE_MS * 2^(k-1), at most
 * BACKOFF_CAP_MS, before it may open another (10 s, 20 s, 40 s, … 10 minutes). An approval, or
 * the window closing, starts it over.
 */
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_CAP_MS = 10 * 60_000;

/** How long to wait after the `refusals`-th denial or close in a row (`base`: the first wait). */
export function backoffMs(refusals: number, base = BACKOFF_BASE_MS): number {
  return refusals <= 0 ? 0 : Math.min(BACKOFF_CAP_MS, base * 2 ** Math.min(refusals - 1, 30));
}

/** Opens and closes main's prompt window (Electron: a BrowserWindow; e2e: a Chromium page). */
export interface PromptOpener {
  /**
   * Opens the prompt for `requestId` (asked by viewer window `requesterWindowId`); the opener
   * tells the broker the prompt window's id with {@link PromptBroker.attach}.
   */
  open(requestId: string, requesterWindowId: number): Promise<void>;
  /** Closes the prompt window of `requestId` (answered, timed out or its requester went away). */
  close(requestId: string): void;
}

export interface PromptAudit {
  append(action: 'raw.requested' | 'raw.denied', details: AuditDetails): Promise<unknown>;
}

/** How an extract review in the prompt ended: approved or denied there, or closed without an answer. */
export type ReviewOutcome = 'approved' | 'denied' | 'closed';

/** What the prompt does with the human's answer to an extract review (the review queue's store). */
export interface ReviewActions {
  approve(reason: string): Promise<void>;
  deny(reason: string): Promise<void>;
}

/** Describes running captures to the prompt (the follow service). */
export interface RunningPort {
  describe(id: string, stream: string): Promise<RunningDescription | null>;
}

/** What a prompt asks for: a sealed artifact (by digest), or one stream of a running capture. */
type Subject =
  | { readonly kind: 'artifact'; readonly ref: ArtifactRef; readonly sha256: string; readonly size: number }
  | { readonly kind: 'running'; readonly recordId: string; readonly stream: string };

interface Pending {
  readonly id: string;
  /** Set for a review-queue extract: the human's answer goes to the queue, not to the grants. */
  readonly review: ReviewActions | null;
  readonly subject: Subject;
  /** What the human types to approve (lower-case hex). */
  readonly challenge: string;
  readonly windowId: number;
  readonly range: readonly [number, number] | null;
  readonly requestedReason: string;
  readonly view: Omit<PromptView, 'expiresInMs'>;
  readonly deadline: number;
  promptWindow: number | null;
  timer: unknown;
  settle(outcome: RawAccessOutcome | { readonly state: 'approved' }): void;
}

/**
 * Raw-access requests: `requestRawAccess` from a viewer window opens main's own prompt window,
 * which alone can read the request (`getPrompt`) and answer it (`answerPrompt`). Approval needs a
 * reason and the first {@link CONFIRM_DIGITS} hex digits of the digest typed by the human; only
 * then does the broker ask the GrantStore for a grant. The requester cannot answer, extend or
 * create anything: it only waits for the outcome.
 */
export class PromptBroker {
  private readonly pending = new Map<string, Pending>();
  /** `<window>:<sha256>` → denials and closes in a row, and when the window may ask again. */
  private readonly refused = new Map<string, { count: number; until: number }>();
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly deps: {
      grants: GrantStore;
      view: VaultView;
      audit: PromptAudit;
      opener: PromptOpener;
      /** Running captures (requestRunning); without it such requests are refused. */
      running?: RunningPort;
      timeoutMs?: number;
      now?: () => number;
      /** The first back-off wait (default BACKOFF_BASE_MS; tests of other flows shorten it). */
      backoffBaseMs?: number;
    },
  ) {
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS;
    this.now = deps.now ?? Date.now;
  }

  /** Asks the human; resolves when they approved or denied, the prompt closed or timed out. */
  async request(windowId: number, ref: ArtifactRef, options: { range?: [number, number]; reason?: string }): Promise<RawAccessOutcome> {
    const loc = await this.deps.view.locate(ref);
    const { artifact } = loc;
    if (!artifact.rawAvailable) throw new BridgeError('not-found', `the raw bytes of ${ref} are no longer in the vault (pruned)`);
    const range = options.range ?? null;
    if (range && range[1] > artifact.size) throw new BridgeError('bad-request', `range [${range[0]}, ${range[1]}) is past the end of the artifact (${artifact.size} bytes)`);
    for (const p of this.pending.values()) {
      if (p.windowId === windowId) throw new BridgeError('forbidden', 'this window already has a raw-access request waiting for an answer');
    }
    this.checkBackoff(windowId, artifact.sha256);
    const id = `r-${randomBytes(8).toString('hex')}`;
    const requestedReason = options.reason ?? '';
    await this.deps.audit.append('raw.requested', {
      request: id,
      sha256: artifact.sha256,
      size: artifact.size,
      window: windowId,
      ...(range ? { range: [range[0], range[1]] } : {}),
      reason: auditText(requestedReason),
    });
    // The requester's words come from the renderer: shown quoted, escaped and bounded (untrusted.ts).
    const outcome = await this.waitFor({
      id, windowId, loc, ref, range, requestedReason, shownReason: requestedReason, requester: `viewer window ${windowId}`, extract: null, review: null,
    });
    if (!(outcome.state === 'denied' && outcome.why === REQUESTER_CLOSED)) this.settled(windowId, artifact.sha256, outcome.state === 'granted');
    return outcome as RawAccessOutcome;
  }

  /**
   * Asks the human for raw access to `stream` of the running capture `recordId`, in the same
   * prompt window: it shows the record, the command, the stream and the bytes so far, and the human
   * types the last {@link CONFIRM_DIGITS} hex digits of the record id (there is no digest yet).
   */
  async requestRunning(windowId: number, recordId: string, stream: string, options: { reason?: string }): Promise<RawAccessOutcome> {
    const described = this.deps.running ? await this.deps.running.describe(recordId, stream) : null;
    if (!described) throw new BridgeError('not-found', `no running capture ${recordId} with a stream ${stream}`);
    const { summary, bytesSoFar } = described;
    for (const p of this.pending.values()) {
      if (p.windowId === windowId) throw new BridgeError('forbidden', 'this window already has a raw-access request waiting for an answer');
    }
    const key = `running:${recordId}:${stream}`;
    this.checkBackoff(windowId, key);
    const id = `r-${randomBytes(8).toString('hex')}`;
    const requestedReason = options.reason ?? '';
    await this.deps.audit.append('raw.requested', {
      request: id,
      record: recordId,
      stream,
      running: true,
      size: bytesSoFar,
      window: windowId,
      reason: auditText(requestedReason),
    });
    const shown = untrustedText(requestedReason);
    const outcome = await this.ask({
      id,
      review: null,
      subject: { kind: 'running', recordId, stream },
      challenge: recordId.slice(-CONFIRM_DIGITS).toLowerCase(),
      windowId,
      range: null,
      requestedReason,
      deadline: this.now() + this.timeoutMs,
      view: {
        requestId: id,
        artifact: null,
        running: { recordId, title: summary.title, cwd: summary.cwd, startedAt: summary.startedAt, stream, bytesSoFar },
        record: { id: recordId, title: summary.title, cwd: summary.cwd, createdAt: summary.startedAt, source: 'capture' },
        range: null,
        requestedReason: shown.text,
        requestedReasonTruncated: shown.truncated,
        requestedReasonChars: shown.chars,
        earlierRefusals: this.refused.get(`${windowId}:${key}`)?.count ?? 0,
        requester: `viewer window ${windowId}`,
        confirmDigits: CONFIRM_DIGITS,
      },
    });
    if (!(outcome.state === 'denied' && outcome.why === REQUESTER_CLOSED)) this.settled(windowId, key, outcome.state === 'granted');
    return outcome as RawAccessOutcome;
  }

  /**
   * The pending prompt `id` for viewer window `windowId`, shown in main's prompt window; resolves
   * with how it ended. `review`: a queued extract (`extract` its view), answered through the queue.
   */
  private waitFor(o: {
    id: string; windowId: number; loc: Awaited<ReturnType<VaultView['locate']>>; ref: ArtifactRef; range: readonly [number, number] | null;
    requestedReason: string; shownReason: string; requester: string; extract: RequestView | null; review: ReviewActions | null;
  }): Promise<RawAccessOutcome | { readonly state: 'approved' }> {
    const { id, windowId, ref, range, requestedReason, requester, extract, review } = o;
    const { artifact, summary } = o.loc;
    const shown = untrustedText(o.shownReason);
    return this.ask({
      id,
      review,
      subject: { kind: 'artifact', ref, sha256: artifact.sha256, size: artifact.size },
      challenge: artifact.sha256.slice(0, CONFIRM_DIGITS),
      windowId,
      range,
      requestedReason,
      deadline: this.now() + this.timeoutMs,
      view: {
        requestId: id,
        artifact,
        record: { id: summary.id, title: summary.title, cwd: summary.cwd, createdAt: summary.createdAt, source: summary.source },
        range,
        requestedReason: shown.text,
        requestedReasonTruncated: shown.truncated,
        requestedReasonChars: shown.chars,
        earlierRefusals: this.refused.get(`${windowId}:${artifact.sha256}`)?.count ?? 0,
        requester,
        confirmDigits: CONFIRM_DIGITS,
        ...(extract ? { extract } : {}),
      },
    });
  }

  /** Opens the prompt for `base`; resolves with how it ended. */
  private ask(base: Omit<Pending, 'promptWindow' | 'timer' | 'settle'>): Promise<RawAccessOutcome | { readonly state: 'approved' }> {
    return new Promise((resolve) => {
      const p: Pending = {
        ...base,
        promptWindow: null,
        timer: null,
        settle: (outcome) => {
          clearTimeout(p.timer as NodeJS.Timeout);
          this.pending.delete(base.id);
          this.deps.opener.close(base.id);
          resolve(outcome);
        },
      };
      this.open(p);
    });
  }

  /**
   * Asks the human, in main's prompt window, to approve a queued extract request (the review
   * queue). The renderer's "Approve" only gets here; the decision is the human's in the prompt
   * (their reason and the digest digits), carried out through `actions`. Resolves 'closed' when the
   * prompt went away unanswered: the request then simply stays pending.
   */
  async review(windowId: number, request: RequestView, actions: ReviewActions): Promise<ReviewOutcome> {
    const loc = await this.deps.view.locate(request.artifact);
    for (const p of this.pending.values()) {
      if (p.windowId === windowId) throw new BridgeError('forbidden', 'this window already has a prompt waiting for an answer');
      if (p.view.extract?.id === request.id) throw new BridgeError('forbidden', `request ${request.id} is already being reviewed in a prompt`);
    }
    this.checkBackoff(windowId, loc.artifact.sha256);
    const id = `r-${randomBytes(8).toString('hex')}`;
    const outcome = await this.waitFor({
      // The queue's view escaped the reason already (controls, bidi, tags); untrusted.ts escapes what is left.
      id, windowId, loc, ref: request.artifact, range: request.range, requestedReason: request.reason, shownReason: request.reason,
      requester: request.requester, extract: request, review: actions,
    });
    const ended = outcome.state === 'approved' ? 'approved' : outcome.state === 'denied' && outcome.why === HUMAN_DENIED ? 'denied' : 'closed';
    // A review denied in the prompt decides the request; one closed unanswered may be asked again: backed off.
    this.settled(windowId, loc.artifact.sha256, ended !== 'closed');
    return ended;
  }

  private open(p: Pending): void {
    p.timer = setTimeout(() => void this.deny(p, 'timeout', 'nobody answered the prompt in time'), this.timeoutMs);
    (p.timer as NodeJS.Timeout).unref?.();
    this.pending.set(p.id, p);
    this.deps.opener.open(p.id, p.windowId).catch(() => void this.deny(p, 'prompt-failed', 'the prompt window could not be opened'));
  }

  /** Binds the prompt window main opened for `requestId`; only that window may read or answer it. */
  attach(requestId: string, promptWindowId: number): void {
    const p = this.pending.get(requestId);
    if (p && p.promptWindow === null) p.promptWindow = promptWindowId;
  }

  /** The request a prompt window shows. */
  getPrompt(promptWindowId: number): PromptView {
    const p = this.forPromptWindow(promptWindowId);
    const expiresInMs = p.view.extract ? Math.max(0, Date.parse(p.view.extract.expiresAt) - this.now()) : this.deps.grants.lifetimeMs;
    return { ...p.view, expiresInMs };
  }

  /** The human's answer from the prompt window. */
  async answer(promptWindowId: number, answer: { decision: 'approve' | 'deny'; reason: string; confirm: string }): Promise<{ done: true }> {
    const p = this.forPromptWindow(promptWindowId);
    const reason = answer.reason.trim();
    if (answer.decision === 'deny') {
      if (p.review) {
        await p.review.deny(reason);
        p.settle({ state: 'denied', why: HUMAN_DENIED });
        return { done: true };
      }
      await this.deny(p, 'human', reason ? `the reviewer said “${reason}”` : 'the reviewer denied the request', reason);
      return { done: true };
    }
    if (reason.length === 0) throw new BridgeError('bad-request', 'give a reason before approving');
    if (answer.confirm.trim().toLowerCase() !== p.challenge) {
      throw new BridgeError('bad-request', p.subject.kind === 'running'
        ? `type the last ${CONFIRM_DIGITS} hex digits of the record id to approve`
        : `type the first ${CONFIRM_DIGITS} hex digits of the digest to approve`);
    }
    if (p.review) {
      await p.review.approve(reason);
      p.settle({ state: 'approved' });
      return { done: true };
    }
    const s = p.subject;
    if (s.kind === 'running') {
      // What is approved is the stream as it stands now: a capture that ended meanwhile is not running.
      const now = await this.deps.running?.describe(s.recordId, s.stream);
      if (!now) {
        await this.deny(p, 'capture-ended', 'the capture ended before the approval: open its sealed record and ask again', reason);
        return { done: true };
      }
      const grant = await this.deps.grants.createRunning({ recordId: s.recordId, stream: s.stream, size: now.bytesSoFar, windowId: p.windowId, reason, requestId: p.id });
      p.settle({ state: 'granted', grant });
      return { done: true };
    }
    const grant = await this.deps.grants.create({ ref: s.ref, sha256: s.sha256, size: s.size, windowId: p.windowId, range: p.range, reason, requestId: p.id });
    p.settle({ state: 'granted', grant });
    return { done: true };
  }

  /** The prompt window closed (by the human or the window manager): an unanswered request is denied. */
  async promptClosed(promptWindowId: number): Promise<void> {
    for (const p of this.pending.values()) if (p.promptWindow === promptWindowId) await this.deny(p, 'prompt-closed', 'the prompt was closed without an answer');
  }

  /** The requesting window closed: its waiting request is withdrawn, its back-off forgotten. */
  async windowClosed(windowId: number): Promise<void> {
    for (const p of [...this.pending.values()]) if (p.windowId === windowId) await this.deny(p, 'requester-closed', REQUESTER_CLOSED);
    for (const key of [...this.refused.keys()]) if (key.startsWith(`${windowId}:`)) this.refused.delete(key);
  }

  /** Refuses ('too-soon') a window that must still wait after denials or closes for this artifact (its digest, or `running:<id>:<stream>`). */
  private checkBackoff(windowId: number, sha256: string): void {
    const r = this.refused.get(`${windowId}:${sha256}`);
    const wait = r ? r.until - this.now() : 0;
    if (r && wait > 0) {
      throw new BridgeError('too-soon', `raw access to this artifact was denied or left unanswered ${r.count} time${r.count === 1 ? '' : 's'} in a row from this window: ask again in ${Math.ceil(wait / 1000)} s`);
    }
  }

  /** A prompt of `windowId` for `sha256` ended: granted (the back-off starts over) or not (it grows). */
  private settled(windowId: number, sha256: string, granted: boolean): void {
    const key = `${windowId}:${sha256}`;
    if (granted) {
      this.refused.delete(key);
      return;
    }
    const count = (this.refused.get(key)?.count ?? 0) + 1;
    this.refused.set(key, { count, until: this.now() + backoffMs(count, this.deps.backoffBaseMs) });
  }

  /** Whether a prompt window belongs to a waiting request. */
  isPromptWindow(promptWindowId: number): boolean {
    return [...this.pending.values()].some((p) => p.promptWindow === promptWindowId);
  }

  private forPromptWindow(promptWindowId: number): Pending {
    for (const p of this.pending.values()) if (p.promptWindow === promptWindowId) return p;
    throw new BridgeError('forbidden', 'this window has no raw-access request to show or answer');
  }

  private async deny(p: Pending, by: string, why: string, reason = ''): Promise<void> {
    if (!this.pending.has(p.id)) return;
    this.pending.delete(p.id);
    if (p.review) {
      // An extract review that ends without the human's answer leaves the request pending: nothing to audit.
      p.settle({ state: 'denied', why });
      return;
    }
    const s = p.subject;
    await this.deps.audit.append('raw.denied', {
      request: p.id,
      ...(s.kind === 'running' ? { record: s.recordId, stream: s.stream, running: true } : { sha256: s.sha256 }),
      window: p.windowId,
      by,
      ...(reason ? { reason: auditText(reason) } : {}),
    });
    p.settle({ state: 'denied', why });
  }
}
