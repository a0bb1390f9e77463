/**
 * Leading CSI parameters kept for classifying meaning and for what a CSI does to the text; the rest
 * are only counted. xterm.js acts on 32 (every mode of a DECSET among them), so all of those.
 */
export const MAX_TRACKED_PARAMS = 32;
/** Parameter values saturate here: meanings never need more, and it keeps arithmetic small. */
export const MAX_PARAM_VALUE = 99_999;

/**
 * The parameters of the open CSI or DCS header, as its parameter bytes (digits, `;`, `:`) arrive:
 * the first {@link MAX_TRACKED_PARAMS} values (-1 for an omitted one), each saturated at
 * {@link MAX_PARAM_VALUE}; sub-parameters after `:` are skipped (no meaning looks at them).
 */
export class CsiParams {
  readonly values = new Int32Array(MAX_TRACKED_PARAMS);
  /** The parameter being read (-1: none yet). Past MAX_TRACKED_PARAMS - 1 parameters are only counted. */
  index = -1;
  /** A `:` came since the last `;`: digits belong to a sub-parameter. */
  inSub = false;

  reset(): void {
    this.index = -1;
    this.inSub = false;
  }

  /** Parameters tracked: what meanings look at. */
  get count(): number {
    return Math.min(this.index + 1, MAX_TRACKED_PARAMS);
  }

  /** The first parameter, or -1 when there is none (or it was omitted). */
  get first(): number {
    return this.index >= 0 ? this.values[0] : -1;
  }

  /** Whether the digits at this point go into a tracked parameter's value. */
  get tracking(): boolean {
    return this.index >= 0 && this.index < MAX_TRACKED_PARAMS && !this.inSub;
  }

  /** One parameter byte (the transition table's param action). */
  add(code: number): void {
    if (this.index < 0) this.next();
    if (code === 0x3b) {
      this.next();
    } else if (code === 0x3a) {
      this.inSub = true;
    } else if (!this.inSub && this.index < MAX_TRACKED_PARAMS) {
      const p = this.values[this.index];
      this.values[this.index] = Math.min((p < 0 ? 0 : p * 10) + (code - 0x30), MAX_PARAM_VALUE);
    }
  }

  private next(): void {
    this.index++;
    this.inSub = false;
    if (this.index < MAX_TRACKED_PARAMS) this.values[this.index] = -1;
  }
}

/** tmux 3.3a (input.c) holds 63 parameter bytes (param_buf) and 23 parameters (param_list). */
const TMUX_PARAM_BYTES = 64;
const TMUX_PARAMS = 24;

/**
 * Whether tmux may have dropped a whole CSI of `len` bytes (introducer and final included) with
 * `count` tracked parameters `values`, where xterm.js and libvterm act on it: tmux drops a CSI
 * with 64 parameter bytes or more, 24 parameters or more, or a parameter over INT_MAX (strtonum).
 * On the safe side where only a bound is known: the header is at most `len - 2` bytes, and a
 * saturated value may be any number from MAX_PARAM_VALUE up.
 */
export function tmuxMayDrop(len: number, count: number, values: Int32Array): boolean {
  if (len - 2 >= TMUX_PARAM_BYTES || count >= TMUX_PARAMS) return true;
  for (let k = 0; k < count; k++) if (values[k] >= MAX_PARAM_VALUE) return true;
  return false;
}
