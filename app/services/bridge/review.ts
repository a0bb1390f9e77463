import type { RequestView } from '../../../shared/bridge/types';
import type { PromptBroker } from '../prompt/prompts';
import { requestView, type RequestStore, type StoredRequest } from '../requests';
import type { VaultView } from '../vault-view/view';
import { BridgeError } from './errors';

/**
 * The review queue's bridge methods. `listRequests` shows every request (escaped strings, inert
 * extracts). `reviewRequest(id, 'deny', note)` denies at once; `'approve'` only opens main's prompt
 * window, where the human approves with a reason and the digest digits — so a compromised renderer
 * can ask for a prompt, never approve. The extract is computed by the store at that moment.
 */
export function reviewHandlers(deps: { requests: RequestStore; prompts: PromptBroker; view: VaultView }) {
  const { requests, prompts, view } = deps;
  const titles = async (): Promise<Map<string, string>> => {
    const map = new Map<string, string>();
    for (const r of await view.list()) for (const a of r.artifacts) if (!map.has(a.ref)) map.set(a.ref, r.title);
    return map;
  };
  const shown = async (r: StoredRequest): Promise<RequestView> => {
    // An extract whose approval entry is gone or does not match is not shown as what was returned.
    const releasable = await requests.assertReleasable(r).then(() => true, () => false);
    const v = requestView(r, (await titles()).get(r.artifact) ?? null);
    return releasable ? v : { ...v, extract: null };
  };
  return {
    listRequests: async (): Promise<RequestView[]> => {
      const { requests: all } = await requests.list();
      const t = await titles();
      const out: RequestView[] = [];
      for (const r of all) {
        const releasable = await requests.assertReleasable(r).then(() => true, () => false);
        const v = requestView(r, t.get(r.artifact) ?? null);
        out.push(releasable ? v : { ...v, extract: null });
      }
      // Pending first (what a reviewer acts on), then newest first.
      return out.sort((a, b) => Number(b.state === 'pending') - Number(a.state === 'pending') || (a.createdAt < b.createdAt ? 1 : -1));
    },
    reviewRequest: async (windowId: number, [id, decision, note]: [string, 'approve' | 'deny', string]): Promise<RequestView> => {
      const current = await requests.get(id);
      if (current.state !== 'pending') throw new BridgeError('bad-request', `request ${id} is ${current.state}: only a pending request can be decided`);
      if (decision === 'deny') return shown(await requests.deny(id, { via: 'desktop', note }));
      await prompts.review(windowId, requestView(current), {
        approve: async (reason) => void (await requests.approve(id, { via: 'desktop', note: reason })),
        deny: async (reason) => void (await requests.deny(id, { via: 'desktop', note: reason })),
      });
      return shown(await requests.get(id));
    },
  };
}
