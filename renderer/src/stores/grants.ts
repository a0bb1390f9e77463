import { create } from 'zustand';
import type { GrantInfo } from '../../../shared/bridge/types';

export type GrantPhase = 'none' | 'asking' | 'granted' | 'denied' | 'ended';

export interface GrantState {
  phase: GrantPhase;
  grant: GrantInfo | null;
  /** Why the request was denied or the grant ended. */
  why: string | null;
  /** Clock for the countdown (ms since epoch), ticked once a second while granted. */
  now: number;
}

export const initialGrants = (): GrantState => ({ phase: 'none', grant: null, why: null, now: Date.now() });

export const useGrants = create<GrantState>(() => initialGrants());
