// A splitter between two panes: drag it, or focus it and use the keys (arrows move 16 px, with
// Shift 64 px; Home and End go to the ends; Enter folds or unfolds when the pane can fold;
// a double-click puts it back to its default). The value is the size of the pane it controls.
import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

export interface SplitterProps {
  /** `vertical`: a vertical bar between left and right panes; `horizontal`: between top and bottom. */
  readonly orientation: 'vertical' | 'horizontal';
  readonly value: number;
  readonly min: number;
  readonly max: number;
  /** Which way the controlled pane grows: 1 when moving right/down grows it, -1 when left/up does. */
  readonly grows: 1 | -1;
  readonly label: string;
  /** id of the pane it resizes. */
  readonly controls?: string;
  readonly onChange: (value: number) => void;
  /** Enter: fold or unfold the pane. */
  readonly onToggle?: () => void;
  /** Double-click: the default size. */
  readonly onReset?: () => void;
  readonly testId?: string;
}

export const KEY_STEP = 16;
export const KEY_STEP_LARGE = 64;

/** The value a key press asks for (null: not a splitter key). */
export function splitterKey(key: string, shift: boolean, p: { value: number; min: number; max: number; orientation: 'vertical' | 'horizontal'; grows: 1 | -1 }): number | null {
  const step = shift ? KEY_STEP_LARGE : KEY_STEP;
  const forward = p.orientation === 'vertical' ? 'ArrowRight' : 'ArrowDown';
  const back = p.orientation === 'vertical' ? 'ArrowLeft' : 'ArrowUp';
  let v: number;
  if (key === forward) v = p.value + step * p.grows;
  else if (key === back) v = p.value - step * p.grows;
  else if (key === 'Home') v = p.min;
  else if (key === 'End') v = p.max;
  else return null;
  return Math.max(p.min, Math.min(p.max, v));
}

export function Splitter(p: SplitterProps) {
  const drag = useRef<{ at: number; value: number } | null>(null);
  const pos = (e: PointerEvent) => (p.orientation === 'vertical' ? e.clientX : e.clientY);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture?.(e.pointerId);
    e.currentTarget.focus();
    drag.current = { at: pos(e), value: p.value };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    const v = d.value + (pos(e) - d.at) * p.grows;
    p.onChange(Math.round(Math.max(p.min, Math.min(p.max, v))));
  };
  const end = (e: PointerEvent<HTMLDivElement>) => {
    drag.current = null;
    e.currentTarget.releasePointerCapture?.(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Enter' && p.onToggle) {
      e.preventDefault();
      p.onToggle();
      return;
    }
    const v = splitterKey(e.key, e.shiftKey, p);
    if (v === null) return;
    e.preventDefault();
    e.stopPropagation();
    p.onChange(v);
  };
  return (
    <div
      className={`splitter ${p.orientation}`}
      role="separator"
      tabIndex={0}
      aria-orientation={p.orientation}
      aria-label={p.label}
      aria-controls={p.controls}
      aria-valuenow={Math.round(p.value)}
      aria-valuemin={Math.round(p.min)}
      aria-valuemax={Math.round(p.max)}
      title={`${p.label}: drag, or focus and use the arrow keys${p.onToggle ? '; Enter folds the panel' : ''}`}
      data-testid={p.testId}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
      onDoubleClick={p.onReset}
      onKeyDown={onKeyDown}
    />
  );
}
