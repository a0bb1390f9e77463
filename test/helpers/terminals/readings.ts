/**
 * Every terminal reading of a batch of inputs at once: tmux (a real pane, screen and history),
 * libvterm (two ways, see {@link Readings.vterm}), xterm.js (@xterm/headless: what its print
 * handler gets) and the independent 8-bit VT500 reading. Each real terminal runs once per batch,
 * so thousands of cases cost seconds; results are cached by input, so a property can look up the
 * batch it was sampled from and still run a case it has not seen (while shrinking) one by one.
 */
import { hex } from '../record';
import { read8bit } from '../vt500-8bit';
import { WatchedTerminal } from '../xterm';
import { vtermPrinted, vtermScreen } from './libvterm';
import { TmuxReading } from './tmux';

export interface Readings {
  /** xterm.js: characters handed to its print handler, before and after its character set. */
  xterm: string;
  xtermDrawn: string;
  /**
   * libvterm: what its parser printed (vterm-dump) and what its screen shows (unterm: the lines
   * scrolled off and the last screen, joined with LF). Text libvterm prints is in one or the
   * other: each tool hides some that libvterm shows. vterm-dump's own text callback takes as many
   * bytes as a lead byte announces without looking at them (`F5 80 CAN 記` loses the CAN and the
   * 記, which libvterm's decoder shows); libvterm 0.1.4's screen draws a U+0080–U+009F code point
   * with a width of -1, so the next character overwrites the one before it.
   */
  vterm: string;
  /** null where unterm crashed on the input. */
  vtermScreen: string | null;
  /** tmux: the pane's screen and history after the input (lines joined with LF). */
  tmux: string;
  /** The 8-bit VT500 reading (test/helpers/vt500-8bit.ts). */
  eightBit: string;
}

export class TerminalReadings {
  private readonly cache = new Map<string, Readings>();
  private readonly tmux: TmuxReading;
  private readonly xterm: WatchedTerminal;

  constructor(private readonly cols = 200, rows = 40) {
    this.tmux = new TmuxReading(cols, rows);
    this.xterm = new WatchedTerminal(cols, rows);
  }

  /** Reads every input not read yet, each terminal once for the whole batch. */
  async prepare(inputs: readonly Uint8Array[]): Promise<void> {
    const todo = [...new Map(inputs.filter((c) => !this.cache.has(hex(c))).map((c) => [hex(c), c])).values()];
    if (todo.length === 0) return;
    const vterm = vtermPrinted(todo);
    const screen = vtermScreen(todo, this.cols);
    const tmux = await this.tmux.render(todo);
    for (let i = 0; i < todo.length; i++) {
      await this.xterm.clear();
      await this.xterm.write(todo[i]);
      this.cache.set(hex(todo[i]), {
        xterm: this.xterm.printed, xtermDrawn: this.xterm.drawn, vterm: vterm[i], vtermScreen: screen[i], tmux: tmux[i],
        eightBit: read8bit(todo[i]),
      });
    }
  }

  async of(input: Uint8Array): Promise<Readings> {
    await this.prepare([input]);
    return this.cache.get(hex(input)) as Readings;
  }

  close(): void {
    this.tmux.close();
    this.xterm.dispose();
  }
}
