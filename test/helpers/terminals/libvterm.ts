/**
 * libvterm as a reading, through the two programs Debian's libvterm-bin ships, each run once for
 * a whole batch of cases (one file, one process):
 *
 * - `vterm-dump FILE`: libvterm's parser with UTF-8 on; it prints text as it is and every
 *   control, escape, CSI, OSC and DCS as `{…}`. {@link vtermPrinted} returns the text per case:
 *   what libvterm's parser hands to the screen as text (before the screen applies a character set).
 * - `unterm -c COLS -l ROWS FILE`: libvterm's screen; it prints each line scrolled off the top,
 *   then the last screen. {@link vtermScreen} returns the lines each case drew, after character
 *   sets (DEC line drawing, UK) as libvterm draws them.
 *
 * Cases are separated so that no state leaks: CAN returns the parser to ground from any state
 * (libvterm has no string that ignores it); a CSI with a numbered, unusual final marks the
 * boundary in the dump; NUL bytes (which libvterm skips everywhere) pad each case to a multiple of
 * the 1024 bytes both programs read at a time, so no character is cut by a read (vterm-dump's text
 * callback drops a character split across two reads). For unterm, RIS starts each case on a
 * fresh screen; after it, margins, origin mode and the character set are reset (nothing that
 * erases), LFs at the bottom row scroll every line of the case off the top (each printed as it
 * goes), and a marker line follows.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BLOCK = 1024;

/** True when both libvterm programs run here. */
export function libvtermAvailable(): boolean {
  return ['vterm-dump', 'unterm'].every((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0);
}

function padded(parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const pad = (BLOCK - (body.length % BLOCK)) % BLOCK;
  return Buffer.concat([body, Buffer.alloc(pad)]);
}

/**
 * Runs `program` on a file holding `file`; null when it crashes or hangs (unterm 0.1.4 does on
 * some inputs: it loops forever on REP after U+202E and `ESC ) ;`). A batch reads in well under a
 * millisecond a case (2.3 s for 19,000 cases): the time allowed is about four times that.
 */
function run(program: string, args: string[], file: Buffer): Buffer | null {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-vterm-'));
  try {
    const path = join(dir, 'input');
    writeFileSync(path, file);
    const r = spawnSync(program, [...args, path], { maxBuffer: 1 << 28, timeout: 5_000 + (file.length >> 12) });
    if (r.signal !== null) return null;
    if (r.status !== 0) throw new Error(`${program} failed: ${r.stderr.toString()}`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const enc = (s: string): Buffer => Buffer.from(s, 'latin1');

/**
 * The text libvterm's parser prints for each case (lenient UTF-8 decode of vterm-dump's text; the
 * `{…}` of controls, and the newline it adds after LF, removed). A case longer than 1000 bytes is
 * refused: it could cross a read.
 */
export function vtermPrinted(cases: readonly Uint8Array[]): string[] {
  const blocks = cases.map((c, i) => {
    if (c.length > BLOCK - 32) throw new Error('vtermPrinted: case too long');
    return padded([enc('\x18'), enc(`\x1b[31337;${i}y`), c, enc('\x18')]);
  });
  const dumped = run('vterm-dump', ['-c'], Buffer.concat(blocks));
  if (dumped === null) throw new Error('vterm-dump crashed');
  const out = dumped.toString('latin1');
  const results: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const head = `${OPEN}CSI 31337,${i} y${CLOSE}`;
    const start = out.indexOf(head);
    const next = i + 1 < cases.length ? out.indexOf(`${OPEN}CSI 31337,${i + 1} y${CLOSE}`, start) : out.length;
    if (start < 0 || next < 0) throw new Error(`vtermPrinted: case ${i} not found in the dump`);
    results.push(textOfDump(out.slice(start + head.length, next)));
  }
  return results;
}

/**
 * How `vterm-dump -c` brackets a control: `{…}` in reverse video. Text never holds ESC (libvterm's
 * parser takes every ESC), so unlike plain braces these cannot be confused with text.
 */
const OPEN = '\x1b[7m{';
const CLOSE = '}\x1b[m';

/** The text parts of a vterm-dump excerpt (latin1 bytes): controls dropped, then decoded leniently. */
function textOfDump(s: string): string {
  let text = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith(OPEN, i)) {
      i = s.indexOf(CLOSE, i) + CLOSE.length;
    } else if (s[i] === '\n') {
      // vterm-dump adds a newline after LF and before line-moving CSIs: not text (LF is a control).
      i++;
    } else {
      text += s[i++];
    }
  }
  return Buffer.from(text, 'latin1').toString('utf8');
}

/**
 * The lines libvterm's screen draws for each case (right-trimmed, empty lines dropped): run on a
 * `rows` x `cols` screen. Cases must not switch to the alternate screen (its lines never scroll off).
 * null for a case unterm crashes on (libvterm 0.1.4 has such inputs): a batch that crashes is run
 * again in halves.
 */
export function vtermScreen(cases: readonly Uint8Array[], cols = 200, rows = 8): (string | null)[] {
  const whole = screenBatch(cases, cols, rows);
  if (whole !== null) return whole;
  if (cases.length === 1) return [null];
  const half = cases.length >> 1;
  return [...vtermScreen(cases.slice(0, half), cols, rows), ...vtermScreen(cases.slice(half), cols, rows)];
}

function screenBatch(cases: readonly Uint8Array[], cols: number, rows: number): string[] | null {
  const scroll = `\x1b[${rows};1H${'\n'.repeat(rows)}`;
  const blocks = cases.map((c, i) => {
    if (c.length > BLOCK - 64 - rows) throw new Error('vtermScreen: case too long');
    return padded([enc('\x1bc'), c, enc(`\x18\x1b\\\x18\x1b[r\x1b[?6l\x0f\x1b(B${scroll}@@vterm-case-${i}@@${scroll}`)]);
  });
  const drawn = run('unterm', ['-c', String(cols), '-l', String(rows)], Buffer.concat(blocks));
  if (drawn === null) return null;
  const out = drawn.toString('utf8');
  const lines = out.split('\n');
  const results: string[] = [];
  let current: string[] = [];
  for (const line of lines) {
    const m = /^@@vterm-case-(\d+)@@/.exec(line);
    if (m) {
      if (Number(m[1]) !== results.length) throw new Error(`vtermScreen: case ${results.length} out of order`);
      results.push(current.map((l) => l.replace(/ +$/, '')).filter((l) => l !== '').join('\n'));
      current = [];
    } else {
      current.push(line);
    }
  }
  if (results.length !== cases.length) throw new Error(`vtermScreen: ${results.length} of ${cases.length} cases found`);
  return results;
}
