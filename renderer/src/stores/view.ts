import { create } from 'zustand';

export type Theme = 'light' | 'dark';
export type MainTab = 'bytes' | 'compare' | 'merged';
export type SideTab = 'report' | 'search' | 'bookmarks' | 'screen' | 'payloads' | 'inspector';
export type CompareMode = 'side' | 'interleaved';

export interface ViewState {
  theme: Theme;
  /** Top row of the hex view (a row number; byte offset = row × 16). */
  hexTop: number;
  hexVisible: number;
  /** Top line of the text view. */
  textTop: number;
  textVisible: number;
  mainTab: MainTab;
  sideTab: SideTab;
  compareMode: CompareMode;
  /** Bumped when raw pages, span blocks or text pages arrive, so rows re-render. */
  rawVersion: number;
  spanVersion: number;
  textVersion: number;
  /** The span under the pointer (its description shows in the status bar). */
  hoverOffset: number | null;
  /** A one-line notice ("Copied 16 bytes as hex"). */
  notice: string | null;
  gotoOpen: boolean;
}

function preferredTheme(): Theme {
  try {
    return typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
  } catch {
    return 'dark';
  }
}

export const initialView = (): ViewState => ({
  theme: preferredTheme(), hexTop: 0, hexVisible: 32, textTop: 0, textVisible: 32, mainTab: 'bytes', sideTab: 'report',
  compareMode: 'side', rawVersion: 0, spanVersion: 0, textVersion: 0, hoverOffset: null, notice: null, gotoOpen: false,
});

export const useView = create<ViewState>(() => initialView());

export function notify(notice: string): void {
  useView.setState({ notice });
}
