import { create } from 'zustand';
import type { ScreenView } from '../../../shared/bridge/types';

/** The screen reconstruction of the open artifact (getScreen), for one terminal size. */
export interface ScreenState {
  cols: number;
  rows: number;
  phase: 'idle' | 'loading' | 'ready' | 'error';
  view: ScreenView | null;
  error: string | null;
  /** The artifact and size `view` is for (a stale answer for another one is dropped). */
  key: string | null;
  /** Where the running reconstruction stands (phase 'loading'). */
  progress: { bytesDone: number; totalBytes: number; elapsedMs: number } | null;
}

export const initialScreen: ScreenState = { cols: 80, rows: 24, phase: 'idle', view: null, error: null, key: null, progress: null };

export const useScreen = create<ScreenState>(() => ({ ...initialScreen }));
