import { lstat, open, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { IngestEvent } from './ingest';

/**
 * script(1) typescripts. The file is `Script started on …` (one line written by script itself),
 * the session's terminal output byte for byte, then `\nScript done on … [COMMAND_EXIT_CODE="n"]`.
 * Policy (documented in the README): the header and footer lines are script's own, not terminal
 * output, so the artifact is the session bytes between them, byte-exact; the lines themselves
 * are parsed into the record (start time, command, exit code, TERM, size) and their lengths and
 * the whole file's digest are kept, so nothing is dropped silently. A file without the header is
 * not treated as a typescript.
 */
export interface ScriptLayout {
  readonly headerLine: string;
  /** Offset of the first session byte (after the header line). */
  readonly start: number;
  /** Offset just past the last session byte (before `\nScript done on`), or the file size. */
  readonly end: number;
  readonly footerLine: string | null;
  readonly startedAt: string | null;
  readonly command: string | null;
  readonly exitCode: number | null;
  readonly term: string | null;
  readonly columns: number | null;
  readonly lines: number | null;
}

const HEADER = 'Script started on ';
const FOOTER = 'Script done on ';
const PROBE = 8192;

/** Whether `head` (the file's first bytes) starts like a script(1) typescript. */
export function looksLikeTypescript(head: Uint8Array): boolean {
  return Buffer.from(head.subarray(0, HEADER.length)).toString('latin1') === HEADER && head.indexOf(0x0a) > 0;
}

/** Finds the header and footer of a typescript of `size` bytes. */
export async function scriptLayout(path: string, size: number): Promise<ScriptLayout> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(PROBE, size));
    await fh.read(head, 0, head.length, 0);
    const nl = head.indexOf(0x0a);
    if (!head.subarray(0, HEADER.length).equals(Buffer.from(HEADER)) || nl < 0) throw new Error('not a script(1) typescript (no "Script started on" line)');
    const headerLine = head.subarray(0, nl).toString('utf8');
    const start = nl + 1;
    const tailLen = Math.min(PROBE, size - start);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, size - tailLen);
    let end = size;
    let footerLine: string | null = null;
    const at = tail.lastIndexOf(`\n${FOOTER}`);
    if (at >= 0) {
      const line = tail.subarray(at + 1).toString('utf8').replace(/\n$/, '');
      if (!line.includes('\n')) {
        footerLine = line;
        end = size - tailLen + at;
      }
    }
    const attrs = (line: string): Record<string, string> => {
      const out: Record<string, string> = {};
      const m = /\[(.*)\]\s*$/.exec(line);
      if (m) for (const a of m[1].matchAll(/([A-Z_]+)="([^"]*)"/g)) out[a[1]] = a[2];
      return out;
    };
    const h = attrs(headerLine);
    const f = footerLine ? attrs(footerLine) : {};
    const when = headerLine.slice(HEADER.length).replace(/\s*\[.*$/, '');
    const parsed = Date.parse(when.replace(' ', 'T'));
    const int = (s: string | undefined): number | null => (s !== undefined && /^-?\d{1,9}$/.test(s) ? Number(s) : null);
    return {
      headerLine,
      start,
      end,
      footerLine,
      startedAt: Number.isNaN(parsed) ? null : new Date(parsed).toISOString(),
      command: h.COMMAND ?? null,
      exitCode: int(f.COMMAND_EXIT_CODE),
      term: h.TERM ?? null,
      columns: int(h.COLUMNS),
      lines: int(h.LINES),
    };
  } finally {
    await fh.close();
  }
}

/** One output step of a timing file: after `delayMs`, `bytes` more session bytes were written. */
export interface TimingStep {
  readonly delayMs: number;
  readonly bytes: number;
}

/**
 * Parses a script timing file: the classic format (`<seconds> <bytes>` per line, `script -t`)
 * or the advanced one (`O|I|S|H <seconds> <…>`, `script -T -m advanced`). Only output (`O`)
 * steps locate session bytes; input, signal and header lines are skipped (their time still counts).
 */
export function parseTiming(text: string): TimingStep[] {
  const steps: TimingStep[] = [];
  let carry = 0;
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    lineNo++;
    const line = raw.trim();
    if (!line) continue;
    let m = /^(\d+(?:\.\d+)?)\s+(\d+)$/.exec(line);
    if (m) {
      steps.push({ delayMs: Number(m[1]) * 1000 + carry, bytes: Number(m[2]) });
      carry = 0;
      continue;
    }
    m = /^([OISH])\s+(\d+(?:\.\d+)?)(?:\s+(.*))?$/.exec(line);
    // The error reaches the renderer: it says where, never what (no bytes of the file echoed).
    if (!m) throw new Error(`timing file: cannot read line ${lineNo}`);
    const delay = Number(m[2]) * 1000;
    if (m[1] === 'O' && /^\d+$/.test(m[3] ?? '')) {
      steps.push({ delayMs: delay + carry, bytes: Number(m[3]) });
      carry = 0;
    } else carry += delay;
  }
  return steps;
}

/** Session bytes as events: one per timing step (with its time), the rest as one final event. */
export async function* scriptEvents(path: string, layout: ScriptLayout, steps: readonly TimingStep[] | null, stats: { timedBytes: number }): AsyncGenerator<IngestEvent> {
  const fh = await open(path, 'r');
  try {
    let pos = layout.start;
    let t = 0;
    const readSlice = async (n: number): Promise<Uint8Array> => {
      const buf = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const { bytesRead } = await fh.read(buf, got, n - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      pos += got;
      return buf.subarray(0, got);
    };
    for (const step of steps ?? []) {
      t += step.delayMs;
      const n = Math.min(step.bytes, layout.end - pos);
      if (n <= 0) break;
      // One step can be large (a burst); cut it into 1 MiB events with the same time.
      for (let left = n; left > 0; ) {
        const piece = await readSlice(Math.min(left, 1 << 20));
        if (piece.length === 0) break;
        stats.timedBytes += piece.length;
        left -= piece.length;
        yield { stream: 'stdout', bytes: piece, tMs: t };
      }
    }
    while (pos < layout.end) {
      const piece = await readSlice(Math.min(layout.end - pos, 1 << 20));
      if (piece.length === 0) break;
      yield { stream: 'stdout', bytes: piece, tMs: t };
    }
  } finally {
    await fh.close();
  }
}

/** Reads a timing file (bounded: 64 MiB). */
export async function readTiming(path: string): Promise<TimingStep[]> {
  const text = await readFile(path, 'utf8');
  if (text.length > 64 << 20) throw new Error('timing file is larger than 64 MiB');
  return parseTiming(text);
}

/**
 * The timing file that usually sits beside a typescript when none was named: `<file>.timing`,
 * `<file without extension>.timing`, or `timing` in the same directory (script's own default
 * names). Only regular files count.
 */
export async function findTimingFile(path: string): Promise<string | null> {
  const dir = dirname(path);
  const base = basename(path);
  const stem = extname(base) ? base.slice(0, -extname(base).length) : base;
  for (const candidate of [`${path}.timing`, join(dir, `${stem}.timing`), join(dir, 'timing')]) {
    const st = await lstat(candidate).catch(() => null);
    if (st?.isFile()) return candidate;
  }
  return null;
}
