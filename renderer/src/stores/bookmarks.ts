import { create } from 'zustand';
import type { Bookmark } from '../../../shared/bridge/types';

export interface BookmarkState {
  list: Bookmark[];
  error: string | null;
}

export const initialBookmarks: BookmarkState = { list: [], error: null };

export const useBookmarks = create<BookmarkState>(() => ({ ...initialBookmarks }));
