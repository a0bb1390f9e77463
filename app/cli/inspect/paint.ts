import type { CellKind } from '../../../shared/hex';

/** SGR sequences Airlock itself emits on a TTY: fixed strings, never built from input. */
const SGR: Partial<Record<CellKind | 'note' | 'dim', string>> = {
  c0: '\x1b[31m',
  del: '\x1b[31m',
  c1: '\x1b[35m',
  invalid: '\x1b[33m',
  invisible: '\x1b[36m',
  'utf8-escaped': '\x1b[36m',
  partial: '\x1b[2m',
  note: '\x1b[1;34m',
  dim: '\x1b[2m',
};
const RESET = '\x1b[0m';

/** Colours inert cell text by kind; returns the text unchanged for kinds that need no colour. */
export function paintCell(text: string, kind: CellKind | 'note' | 'dim'): string {
  const sgr = SGR[kind];
  return sgr === undefined ? text : `${sgr}${text}${RESET}`;
}

/**
 * Whether to colour: `always`/`never` win; `auto` colours only a TTY and only without NO_COLOR
 * (https://no-color.org) or TERM=dumb.
 */
export function wantsColor(mode: string, isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  return isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
}
