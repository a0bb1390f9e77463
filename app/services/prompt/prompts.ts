import { randomBytes } from 'node:crypto';
import type { AuditDetails } from '../../node/audit';
import { terminalSafeLine } from '../../node/terminal-safe';
import type { ArtifactRef, PromptView, RawAccessOutcome, RequestView } from '../../../shared/bridge/types';
import { auditText, BridgeError } from '../bridge/errors';
import type { GrantStore } from '../grants/grants';
import type { VaultView } from '../vault-view/view';

/** How many hex digits of the digest the human types to approve. */
export const CONFIRM_DIGITS = 8;
/** The `why` of an extract review the human denied in the prompt (other ends: closed, timed out). */
const HUMAN_DENIED = 'denied by the reviewer';
/** A prompt nobody answers is denied after this long (5 minutes). */
export const DEFAULT_PROMPT_TIMEOUT_MS = 5 * 60_000;

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

interface Pending {
  readonly id: string;
  /** Set for a review-queue extract: the human's answer goes to the queue, not to the grants. */
  readonly review: ReviewActions | null;
  readonly ref: ArtifactRef;
  readonly sha256: string;
  readonly size: number;
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
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly deps: {
      grants: GrantStore;
      view: VaultView;
      audit: PromptAudit;
      opener: PromptOpener;
      timeoutMs?: number;
      now?: () => number;
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
    // The requester's words come from the renderer: controls, bidi and tags shown escaped.
    const outcome = await this.waitFor({
      id, windowId, loc, ref, range, requestedReason, shownReason: terminalSafeLine(requestedReason), requester: `viewer window ${windowId}`, extract: null, review: null,
    });
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
    return new Promise((resolve) => {
      const p: Pending = {
        id,
        review,
        ref,
        sha256: artifact.sha256,
        size: artifact.size,
        windowId,
        range,
        requestedReason,
        deadline: this.now() + this.timeoutMs,
        view: {
          requestId: id,
          artifact,
          record: { id: summary.id, title: summary.title, cwd: summary.cwd, createdAt: summary.createdAt, source: summary.source },
          range,
          requestedReason: o.shownReason,
          requester,
          confirmDigits: CONFIRM_DIGITS,
          ...(extract ? { extract } : {}),
        },
        promptWindow: null,
        timer: null,
        settle: (outcome) => {
          clearTimeout(p.timer as NodeJS.Timeout);
          this.pending.delete(id);
          this.deps.opener.close(id);
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
    const id = `r-${randomBytes(8).toString('hex')}`;
    const outcome = await this.waitFor({
      // The reason is escaped by the queue's view already.
      id, windowId, loc, ref: request.artifact, range: request.range, requestedReason: request.reason, shownReason: request.reason,
      requester: request.requester, extract: request, review: actions,
    });
    return outcome.state === 'approved' ? 'approved' : outcome.state === 'denied' && outcome.why === HUMAN_DENIED ? 'denied' : 'closed';
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
    const expected = p.sha256.slice(0, CONFIRM_DIGITS);
    if (answer.confirm.trim().toLowerCase() !== expected) {
      throw new BridgeError('bad-request', `type the first ${CONFIRM_DIGITS} hex digits of the digest to approve`);
    }
    if (p.review) {
      await p.review.approve(reason);
      p.settle({ state: 'approved' });
      return { done: true };
    }
    const grant = await this.deps.grants.create({ ref: p.ref, sha256: p.sha256, size: p.size, windowId: p.windowId, range: p.range, reason, requestId: p.id });
    p.settle({ state: 'granted', grant });
    return { done: true };
  }

  /** The prompt window closed (by the human or the window manager): an unanswered request is denied. */
  async promptClosed(promptWindowId: number): Promise<void> {
    for (const p of this.pending.values()) if (p.promptWindow === promptWindowId) await this.deny(p, 'prompt-closed', 'the prompt was closed without an answer');
  }

  /** The requesting window closed: its waiting request is withdrawn. */
  async windowClosed(windowId: number): Promise<void> {
    for (const p of [...this.pending.values()]) if (p.windowId === windowId) await this.deny(p, 'requester-closed', 'the requesting window closed');
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
    await this.deps.audit.append('raw.denied', {
      request: p.id,
      sha256: p.sha256,
      window: p.windowId,
      by,
      ...(reason ? { reason: auditText(reason) } : {}),
    });
    p.settle({ state: 'denied', why });
  }
}
