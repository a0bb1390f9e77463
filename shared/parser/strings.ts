import { APC_MEANING, dcsMeaning, oscMeaning, PM_MEANING, SOS_MEANING } from './meaning';
import { SpanClass } from './span-class';

/** OSC command digits parsed; a longer number is an unknown command. */
const MAX_OSC_COMMAND_DIGITS = 6;

/** Where an OSC string's header stands: its command number, OSC 8's parameters, then the payload. */
export const enum OscPhase { Command = 0, HyperlinkParams = 1, Payload = 2 }

/**
 * The open control string (OSC, DCS, SOS, PM, APC): where its payload starts, what an OSC's header
 * says (its command number and, for OSC 8, where the URI starts), and an ESC inside it that waits
 * for the next unit to say whether it begins ST.
 */
export class StringState {
  /** Stream offset of the payload's first byte (-1: no payload yet). */
  payloadStart = -1;
  phase = OscPhase.Command;
  /** The OSC's command number (-1: none). */
  command = -1;
  private digits = 0;
  /** Stream offset of an OSC 8 hyperlink's URI (-1: none). */
  uriStart = -1;
  /** An ESC arrived inside the string: the next unit decides between ST and an interruption. */
  escPending = false;
  /** Where that ESC is. */
  escAt = 0;
  /** It arrived in a DCS payload (tmux keeps the DCS open unless `\` follows). */
  escInDcs = false;

  /** A new sequence opens. */
  reset(): void {
    this.payloadStart = -1;
    this.phase = OscPhase.Command;
    this.command = -1;
    this.digits = 0;
    this.uriStart = -1;
  }

  /**
   * Reads the OSC header (command number, OSC 8 parameters) from `buf[i]` on, before `n`; `base` is
   * the stream offset of `buf[0]`. Stops at the first byte of the payload without consuming it
   * (terminators among them); returns where it stopped.
   */
  header(buf: Uint8Array, i: number, n: number, base: number): number {
    while (i < n && this.phase !== OscPhase.Payload) {
      const b = buf[i];
      if (this.phase === OscPhase.Command) {
        if (b >= 0x30 && b <= 0x39) {
          if (++this.digits <= MAX_OSC_COMMAND_DIGITS) this.command = Math.max(this.command, 0) * 10 + (b - 0x30);
          else this.command = Number.MAX_SAFE_INTEGER;
          i++;
        } else if (b === 0x3b) {
          this.phase = this.command === 8 ? OscPhase.HyperlinkParams : OscPhase.Payload;
          i++;
        } else {
          this.phase = OscPhase.Payload;
        }
      } else if (b === 0x3b) {
        this.uriStart = base + i + 1;
        this.phase = OscPhase.Payload;
        i++;
      } else if (b >= 0x20 && b < 0x7f) {
        i++;
      } else {
        this.phase = OscPhase.Payload;
      }
    }
    return i;
  }

  /**
   * The meaning of a string span of class `cls` whose payload stopped at `terminatorAt`; a DCS is
   * named by its header's private marker, first intermediate and final byte.
   */
  meaning(cls: SpanClass, priv: number, inter: number, final: number, terminatorAt: number): string {
    switch (cls) {
      case SpanClass.Osc: return oscMeaning(this.command, this.uriStart >= 0 && terminatorAt > this.uriStart);
      case SpanClass.Dcs: return dcsMeaning(priv, inter, final);
      case SpanClass.Sos: return SOS_MEANING;
      case SpanClass.Pm: return PM_MEANING;
      default: return APC_MEANING;
    }
  }

  /** Whether the payload, stopped at `terminatorAt`, went past `maxBytes`. */
  oversized(terminatorAt: number, maxBytes: number): boolean {
    return this.payloadStart >= 0 && terminatorAt - this.payloadStart > maxBytes;
  }
}
