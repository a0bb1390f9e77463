import { create } from 'zustand';
import type { FollowUpdate, RunningSummary, ScreenStatus } from '../../../shared/bridge/types';

/** A running capture open in the follow view, and where following it stands. */
export interface FollowState {
  /** Running captures, for the vault browser. */
  running: RunningSummary[];
  /** The capture followed (null: the follow view is closed). */
  open: RunningSummary | null;
  stream: string;
  /** The last answer from main (text aside: it is in the follow session's lines). */
  last: Omit<FollowUpdate, 'text'> | null;
  /** Bumped when lines arrive, so the text view renders them. */
  textVersion: number;
  /** Keep the end of the text in view (off once the user scrolls up, on again at the end). */
  autoscroll: boolean;
  /** Lines that arrived while autoscroll was off. */
  unseen: number;
  tab: 'text' | 'hex' | 'screen';
  screen: ScreenStatus | null;
  screenError: string | null;
  error: string | null;
}

export const initialFollow = (): FollowState => ({
  running: [], open: null, stream: 'stdout', last: null, textVersion: 0, autoscroll: true, unseen: 0, tab: 'text', screen: null, screenError: null, error: null,
});

export const useFollow = create<FollowState>(() => initialFollow());
