import { create } from 'zustand';
import type { RequestView } from '../../../shared/bridge/types';
import { bridge, errorText } from '../bridge';

/** The Requests view: the review queue as main lists it, and what the reviewer is doing. */
export interface RequestsState {
  /** The Requests view is shown (instead of the vault browser). */
  open: boolean;
  items: RequestView[];
  selected: string | null;
  loading: boolean;
  /** A decision is on its way (approve waits for the human in main's prompt window). */
  busy: string | null;
  error: string | null;
}

export const initialRequests = (): RequestsState => ({ open: false, items: [], selected: null, loading: false, busy: null, error: null });

export const useRequests = create<RequestsState>(() => initialRequests());

/** Reloads the queue from main (pending first), keeping the selection when it still exists. */
export async function loadRequests(): Promise<void> {
  useRequests.setState({ loading: true, error: null });
  try {
    const items = await bridge().listRequests();
    const { selected } = useRequests.getState();
    useRequests.setState({ items, loading: false, selected: items.some((r) => r.id === selected) ? selected : (items[0]?.id ?? null) });
  } catch (e) {
    useRequests.setState({ loading: false, error: errorText(e) });
  }
}

/**
 * Asks main to decide `id`. Deny is done at once; approve opens main's own prompt window and this
 * resolves once the human answered there (or closed it: the request stays pending).
 */
export async function reviewRequest(id: string, decision: 'approve' | 'deny', note = ''): Promise<void> {
  useRequests.setState({ busy: id, error: null });
  try {
    const updated = await bridge().reviewRequest(id, decision, note);
    useRequests.setState((s) => ({ busy: null, items: s.items.map((r) => (r.id === id ? updated : r)) }));
  } catch (e) {
    useRequests.setState({ busy: null, error: errorText(e) });
  }
}

export function openRequests(open: boolean): void {
  useRequests.setState({ open });
  if (open) void loadRequests();
}
