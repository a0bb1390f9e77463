/**
 * A headless xterm.js terminal instrumented to record every control function it acts on: parser
 * hooks for every CSI/DCS identifier (all private markers, no or one intermediate, every final),
 * every ESC identifier, OSC numbers 0-2000 and well-known large ones, the parser's fallbacks for
 * anything unregistered (CSI, ESC, DCS, OSC, C0/C1 execute), a wrapper around each built-in C0/C1
 * execute handler except LF and TAB, the parse-error hook, and the events a terminal emits
 * (title change, bell, data/binary replies to the host). Used by xterm-differential.test.ts.
 */
import xterm from '@xterm/headless';

const { Terminal } = xterm;
type TerminalT = InstanceType<typeof Terminal>;

const PREFIXES = ['', '<', '=', '>', '?'];
const INTERMEDIATES = ['', ...Array.from({ length: 16 }, (_, i) => String.fromCharCode(0x20 + i))];
const WINDOW_OPTIONS = [
  'restoreWin', 'minimizeWin', 'setWinPosition', 'setWinSizePixels', 'raiseWin', 'lowerWin', 'refreshWin',
  'setWinSizeChars', 'maximizeWin', 'fullscreenWin', 'getWinState', 'getWinPosition', 'getWinSizePixels',
  'getScreenSizePixels', 'getCellSizePixels', 'getWinSizeChars', 'getScreenSizeChars', 'getIconTitle',
  'getWinTitle', 'pushTitle', 'popTitle', 'setWinLines',
];
const OSC_IDENTS = [...Array.from({ length: 2001 }, (_, i) => i), 5113, 5522, 9999, 31337, 777777];

type PrintFn = (data: Uint32Array, start: number, end: number) => void;

/** Internal xterm.js parser surface used for fallbacks (not part of the public typings). */
interface InternalParser {
  currentState: number;
  _executeHandlers: Record<number, () => boolean>;
  setCsiHandlerFallback(cb: (ident: number, params: unknown) => void): void;
  setEscHandlerFallback(cb: (ident: number) => void): void;
  setExecuteHandlerFallback(cb: (code: number) => void): void;
  setDcsHandlerFallback(cb: (ident: number, action: string, payload: unknown) => void): void;
  setOscHandlerFallback(cb: (ident: number, action: string, payload: unknown) => void): void;
  setErrorHandler(cb: (state: unknown) => unknown): void;
}

export class WatchedTerminal {
  readonly term: TerminalT;
  /** Every control the terminal acted on, in order. */
  readonly fired: string[] = [];
  /** Every character the terminal printed (handed to its print handler), in order, since the last clear. */
  printed = '';
  /** The same characters as drawn: through the character set in use (xterm.js maps ASCII only). */
  drawn = '';
  private readonly parser: InternalParser;

  constructor(cols = 200, rows = 40) {
    // Every window operation enabled: xterm.js only calls custom `CSI … t` hooks for allowed ones,
    // and a permissive terminal is the stricter detector.
    const windowOptions = Object.fromEntries(WINDOW_OPTIONS.map((k) => [k, true]));
    this.term = new Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true, convertEol: true, windowOptions });
    const fired = this.fired;
    const p = this.term.parser;
    for (const prefix of PREFIXES) {
      for (const intermediates of INTERMEDIATES) {
        for (let f = 0x40; f <= 0x7e; f++) {
          const final = String.fromCharCode(f);
          const id = `${prefix}${intermediates}${final}`;
          p.registerCsiHandler({ prefix, intermediates, final }, () => (fired.push(`CSI ${id}`), false));
          p.registerDcsHandler({ prefix, intermediates, final }, () => (fired.push(`DCS ${id}`), false));
        }
      }
    }
    for (const intermediates of INTERMEDIATES) {
      for (let f = 0x30; f <= 0x7e; f++) {
        const final = String.fromCharCode(f);
        p.registerEscHandler({ intermediates, final }, () => (fired.push(`ESC ${intermediates}${final}`), false));
      }
    }
    for (const ident of OSC_IDENTS) p.registerOscHandler(ident, () => (fired.push(`OSC ${ident}`), false));

    // Internal fallbacks and wrappers catch whatever the public identifiers do not.
    const core = (this.term as unknown as {
      _core: { _inputHandler: { _parser: InternalParser; print: PrintFn }; _charsetService: { charset: Record<string, string> | undefined } };
    })._core;
    const ip = core._inputHandler._parser;
    // The parser's print handler calls inputHandler.print: record what it prints.
    const handler = core._inputHandler;
    const print = handler.print.bind(handler);
    handler.print = (data, start, end) => {
      const charset = core._charsetService.charset;
      for (let k = start; k < end; k++) {
        const ch = String.fromCodePoint(data[k]);
        this.printed += ch;
        this.drawn += (data[k] < 0x7f && charset?.[ch]) || ch;
      }
      print(data, start, end);
    };
    this.parser = ip;
    ip.setCsiHandlerFallback((ident) => fired.push(`CSI fallback ${ident}`));
    ip.setEscHandlerFallback((ident) => fired.push(`ESC fallback ${ident}`));
    ip.setExecuteHandlerFallback((code) => fired.push(`EXECUTE fallback 0x${code.toString(16)}`));
    ip.setDcsHandlerFallback((ident, action) => fired.push(`DCS fallback ${ident} ${action}`));
    ip.setOscHandlerFallback((ident, action) => fired.push(`OSC fallback ${ident} ${action}`));
    ip.setErrorHandler((state) => {
      fired.push('parse error');
      return state;
    });
    for (const key of Object.keys(ip._executeHandlers)) {
      const code = Number(key);
      if (code === 0x0a || code === 0x09) continue;
      const original = ip._executeHandlers[code];
      ip._executeHandlers[code] = () => {
        fired.push(`EXECUTE 0x${code.toString(16)}`);
        return original();
      };
    }
    this.term.onTitleChange((t) => fired.push(`title ${JSON.stringify(t).length} chars`));
    this.term.onBell(() => fired.push('bell'));
    this.term.onData(() => fired.push('reply to host'));
    this.term.onBinary(() => fired.push('binary reply to host'));
  }

  /**
   * Returns the terminal to a blank screen in ground state between inputs: CAN first (the public
   * reset() does not close a string the parser is still inside), then reset(), then forget what fired.
   */
  async clear(): Promise<void> {
    await this.write(Uint8Array.of(0x18));
    this.term.reset();
    this.fired.length = 0;
    this.printed = '';
    this.drawn = '';
  }

  /** Writes bytes (decoded by xterm's own UTF-8 decoder) and waits until they are parsed. */
  write(data: Uint8Array): Promise<void> {
    return new Promise((resolve) => this.term.write(data, resolve));
  }

  /** The parser's state after the last write: 0 is ground (nothing left open). */
  get parserState(): number {
    return this.parser.currentState;
  }

  /** Rendered lines (right-trimmed), without trailing empty lines. */
  lines(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true) ?? '');
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return out;
  }

  dispose(): void {
    this.term.dispose();
  }
}

/** Renders `data` in a fresh watched terminal; returns what fired and the visible lines. */
export async function render(data: Uint8Array): Promise<{ fired: string[]; lines: string[]; state: number }> {
  const t = new WatchedTerminal();
  try {
    await t.write(data);
    return { fired: [...t.fired], lines: t.lines(), state: t.parserState };
  } finally {
    t.dispose();
  }
}
