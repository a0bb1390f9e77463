import { useState, type FormEvent, type ReactNode } from 'react';

/** Sizes the screen engine takes (the bridge checks them again). */
const MIN_COLS = 2;
const MIN_ROWS = 1;
const MAX_SIDE = 1000;

/**
 * The Screen tab's terminal size (columns × rows) and its run button: `onRun` gets the size when
 * both are whole numbers in range; anything else is not run.
 */
export function TerminalSizeForm({ idPrefix, initial, onRun, button, buttonTestId }: {
  idPrefix: string;
  initial: { cols: number; rows: number };
  onRun: (cols: number, rows: number) => void;
  button: ReactNode;
  buttonTestId?: string;
}) {
  const [size, setSize] = useState({ cols: String(initial.cols), rows: String(initial.rows) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c = Number(size.cols);
    const r = Number(size.rows);
    if (Number.isInteger(c) && c >= MIN_COLS && c <= MAX_SIDE && Number.isInteger(r) && r >= MIN_ROWS && r <= MAX_SIDE) onRun(c, r);
  };
  return (
    <form className="screen-size" onSubmit={submit}>
      <label htmlFor={`${idPrefix}-cols`}>Terminal</label>
      <input id={`${idPrefix}-cols`} aria-label="Columns" inputMode="numeric" value={size.cols} onChange={(e) => setSize({ ...size, cols: e.target.value })} />
      <span>×</span>
      <input id={`${idPrefix}-rows`} aria-label="Rows" inputMode="numeric" value={size.rows} onChange={(e) => setSize({ ...size, rows: e.target.value })} />
      <button type="submit" className="primary" data-testid={buttonTestId}>{button}</button>
    </form>
  );
}
