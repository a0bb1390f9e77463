/**
 * tmux as a reading: a real tmux server on a private socket, one pane of a fixed size whose
 * program (`cat` of a FIFO, with the pty in raw mode) copies bytes we write into the pane's
 * terminal unchanged, and a control-mode client that reads the screen back with `capture-pane`.
 *
 * Many cases run through one server: each case is preceded by a reset (ESC \ ends any string,
 * tmux's DCS included, which CAN does not; CAN clears a half-read UTF-8 character; RIS resets
 * modes, character sets and the screen, which `scroll-on-clear off` keeps out of the history;
 * `clear-history` after each capture drops what the case scrolled off) and followed
 * by an OSC 2 title carrying a sequence number. tmux parses a read before it queues the bytes for
 * control clients (window_pane_read_callback), so once `%output` shows the number, the case has
 * been parsed and `capture-pane` sees its result.
 *
 * What comes back is the screen and its history as tmux would draw them: cells in the DEC line
 * drawing set (tmux marks them with SO/SI under `capture-pane -e`) are mapped to the glyphs
 * tmux's own table (tty-acs.c) sends to a UTF-8 terminal; other attributes are stripped.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** tmux's ACS table (tty-acs.c, tmux 3.3a): the glyph a UTF-8 client gets for each ACS cell. */
const TMUX_ACS: Record<string, string> = {
  '+': '\u2192', ',': '\u2190', '-': '\u2191', '.': '\u2193', '0': '\u25ae', '`': '\u25c6', 'a': '\u2592',
  'b': '\u2409', 'c': '\u240c', 'd': '\u240d', 'e': '\u240a', 'f': '\u00b0', 'g': '\u00b1', 'h': '\u2424',
  'i': '\u240b', 'j': '\u2518', 'k': '\u2510', 'l': '\u250c', 'm': '\u2514', 'n': '\u253c', 'o': '\u23ba',
  'p': '\u23bb', 'q': '\u2500', 'r': '\u23bc', 's': '\u23bd', 't': '\u251c', 'u': '\u2524', 'v': '\u2534',
  'w': '\u252c', 'x': '\u2502', 'y': '\u2264', 'z': '\u2265', '{': '\u03c0', '|': '\u2260', '}': '\u00a3',
  '~': '\u00b7',
};

/** The environment tmux runs in: not nested in a tmux the tests may run inside (it refuses to attach then). */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'TMUX' && k !== 'TMUX_PANE'));

/** True when a tmux binary runs here. */
export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

export class TmuxReading {
  private readonly dir: string;
  private readonly socket: string;
  private readonly fifo: number;
  private readonly control: ChildProcessWithoutNullStreams;
  private out = '';
  private waiter: (() => void) | null = null;
  private serial = 0;
  private closed = false;

  constructor(readonly cols = 200, readonly rows = 40) {
    this.dir = mkdtempSync(join(tmpdir(), 'airlock-tmux-'));
    this.socket = join(this.dir, 'socket');
    const fifoPath = join(this.dir, 'in');
    if (spawnSync('mkfifo', [fifoPath]).status !== 0) throw new Error('mkfifo failed');
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-x', String(cols), '-y', String(rows),
      `stty raw -echo; exec cat ${fifoPath}`);
    this.tmux('set-option', '-g', 'window-size', 'manual');
    this.tmux('set-option', '-g', 'history-limit', '5000');
    // RIS would otherwise push the last case's screen into the history the next capture reads.
    this.tmux('set-option', '-g', 'scroll-on-clear', 'off');
    // Opening a FIFO for writing blocks until the pane's cat opens it for reading.
    this.fifo = openSync(fifoPath, 'w');
    this.control = spawn('tmux', ['-S', this.socket, '-C', 'attach'], { stdio: ['pipe', 'pipe', 'pipe'], env: ENV });
    this.control.stdout.setEncoding('latin1');
    this.control.stdout.on('data', (d: string) => {
      this.out += d;
      this.waiter?.();
    });
  }

  private tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8', env: ENV });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** Resolves once the control client's output matches `re` (searched from `from`). */
  private until(re: RegExp, from: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tmux: timed out waiting for ${re}`)), 20_000);
      const check = (): void => {
        re.lastIndex = from;
        const m = re.exec(this.out);
        if (m) {
          clearTimeout(timer);
          this.waiter = null;
          resolve(m);
        }
      };
      this.waiter = check;
      check();
    });
  }

  /** The screen and history (lines, right-trimmed, trailing empty lines dropped) after each case on a fresh terminal. */
  async render(cases: readonly Uint8Array[]): Promise<string[]> {
    const results: string[] = [];
    for (const c of cases) results.push(await this.renderOne(c));
    return results;
  }

  private async renderOne(input: Uint8Array): Promise<string> {
    // Output reaches only attached control clients: the first case waits for the attach.
    if (this.serial === 0) await this.until(/%session-changed/g, 0);
    const n = ++this.serial;
    const tag = `airlock-sync-${n}-`;
    this.out = '';
    writeSync(this.fifo, Buffer.concat([
      Buffer.from('\x1b\\\x18\x1bc', 'latin1'), input, Buffer.from(`\x1b\\\x18\x1b]2;${tag}\x07`, 'latin1'),
    ]));
    await this.until(new RegExp(tag, 'g'), 0);
    const from = this.out.length;
    this.control.stdin.write('capture-pane -p -e -J -S - -E - -t %0\nclear-history -t %0\n');
    const m = await this.until(/%begin \d+ (\d+) \d+\n([\s\S]*?)%end \d+ \1 \d+\n/g, from);
    const text = Buffer.from(m[2], 'latin1').toString('utf8');
    const lines = drawn(text).split('\n').map((l) => l.replace(/ +$/, ''));
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.control.stdin.end();
    this.control.kill();
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { env: ENV });
    closeSync(this.fifo);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `capture-pane -e` text with SGR removed and SO … SI runs mapped through tmux's ACS table. */
function drawn(text: string): string {
  let out = '';
  let acs = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\x1b' && text[i + 1] === '[') {
      let j = i + 2;
      while (j < text.length && !/[@-~]/.test(text[j])) j++;
      i = j;
    } else if (c === '\x0e') {
      acs = true;
    } else if (c === '\x0f') {
      acs = false;
    } else {
      out += acs ? TMUX_ACS[c] ?? c : c;
    }
  }
  return out;
}
