import { create } from 'zustand';

export interface SelectionState {
  /** The byte the keyboard cursor is on. */
  cursor: number;
  /** Where the selection started (shift-extends from here). */
  anchor: number;
  /** Selected bytes `[start, end)`; null: just the cursor. */
  range: readonly [number, number] | null;
  /** The text line the selection maps to (lit in the text view). */
  textLine: number | null;
  textPiece: number | null;
}

export const initialSelection: SelectionState = { cursor: 0, anchor: 0, range: null, textLine: null, textPiece: null };

export const useSelection = create<SelectionState>(() => ({ ...initialSelection }));

/** The selection or, without one, the cursor byte. */
export function selectedRange(s: SelectionState): readonly [number, number] {
  return s.range ?? [s.cursor, s.cursor + 1];
}
