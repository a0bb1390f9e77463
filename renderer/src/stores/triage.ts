import { create } from 'zustand';
import { EMPTY_FILTER, type TriageFilter } from '../lib/triage';

/** The vault browser's filter and the row last focused: kept while an artifact is open, so going back finds them. */
export interface TriageState {
  filter: TriageFilter;
  /** The artifact row that had the focus (its ref). */
  focusRef: string | null;
}

export const initialTriage = (): TriageState => ({ filter: EMPTY_FILTER, focusRef: null });

export const useTriage = create<TriageState>(() => initialTriage());

export function setFilter(change: Partial<TriageFilter>): void {
  useTriage.setState((s) => ({ filter: { ...s.filter, ...change } }));
}
