import { create } from 'zustand';

export type SearchMode = 'text' | 'raw-text' | 'raw-hex';

export interface SearchState {
  query: string;
  mode: SearchMode;
  caseSensitive: boolean;
  hits: readonly number[];
  hitLength: number;
  total: number;
  /** Index of the current hit, -1 before the first next. */
  index: number;
  busy: boolean;
  error: string | null;
  /** What the hits are for (query and mode when run). */
  ran: { query: string; mode: SearchMode } | null;
  elapsedMs: number;
}

export const initialSearch: SearchState = {
  query: '', mode: 'text', caseSensitive: false, hits: [], hitLength: 0, total: 0, index: -1, busy: false, error: null, ran: null, elapsedMs: 0,
};

export const useSearch = create<SearchState>(() => ({ ...initialSearch }));
