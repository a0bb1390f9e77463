// Controls whose count xterm.js carries out one unit at a time, however large: `CSI n S` and
// `CSI n T` (scroll up/down) and `CSI n L` and `CSI n M` (insert/delete lines) splice the buffer n
// times, `CSI n I` and `CSI n Z` (CHT/CBT) step n tab stops, REP (`CSI n b`) builds and prints n
// copies. Twelve bytes (`ESC [ 2147483647 S`) held the engine for hours — and with it the MCP
// server, whose `screen` tool runs in line, and the command's own output decides the count. Each
// count is cut, before xterm.js acts on it, to one that leaves the screen exactly as the full count
// would: more scrolling or inserting than the screen has rows only moves blank lines, more tab
// steps than it has columns stay at the margin, and REP past a full screen repeats the same cells.
import { type Terminal } from '@xterm/headless';

/** The parameters xterm.js hands a CSI handler (its internal IParams): the values are live. */
interface LiveParams {
  readonly params: Int32Array;
  readonly length: number;
}

interface CoreWithHandlers {
  _core: {
    registerCsiHandler(id: { final: string }, handler: (params: LiveParams) => boolean): unknown;
  };
}

/**
 * The count REP may be cut to with the same screen: past `cols * rows` copies the screen holds only
 * copies, and where the cursor ends repeats with the copies a line holds (`cols` for one cell each,
 * `floor(cols / 2)` for wide ones: a divisor of `cols` or `cols - 1`), so a count of at least
 * `cols * rows` in the same residue modulo `cols * (cols - 1)` ends alike. Only how many lines of
 * copies went to the scrollback differs.
 */
export function boundedRepeat(count: number, cols: number, rows: number): number {
  const full = cols * rows;
  const period = cols * Math.max(cols - 1, 1);
  if (count <= full + period) return count;
  return full + ((count - full) % period);
}

/**
 * Cuts the counts of {@link Terminal} `term` (cols x rows) before its own handlers see them.
 * Registered handlers run before the built-in ones; each edits the live first parameter and
 * passes the control on.
 */
export function boundCounts(term: Terminal, cols: number, rows: number): void {
  const core = (term as unknown as CoreWithHandlers)._core;
  const cut = (final: string, bound: (n: number) => number): void => {
    core.registerCsiHandler({ final }, (p) => {
      if (p.length > 0) p.params[0] = bound(p.params[0]);
      return false;
    });
  };
  for (const final of ['S', 'T', 'L', 'M']) cut(final, (n) => Math.min(n, rows));
  for (const final of ['I', 'Z']) cut(final, (n) => Math.min(n, cols));
  cut('b', (n) => boundedRepeat(n, cols, rows));
}
