import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { IngestEvent } from './ingest';

/**
 * asciicast v2 and v3 (asciinema's `.cast`): a JSON header line, then one JSON event per line,
 * `[time, code, data]`. v2 times are seconds since the start; v3 times are intervals since the
 * previous event and v3 adds an exit event (`"x"`) and `#` comment lines. Output (`"o"`) data is
 * decoded text, not the bytes the terminal received: the artifact is rebuilt by encoding it as
 * UTF-8, so invalid UTF-8 and the original chunking are lost. Records say `rebuilt: true`.
 */
export interface CastHeader {
  readonly version: 2 | 3;
  readonly cols: number | null;
  readonly rows: number | null;
  readonly term: string | null;
  readonly title: string | null;
  readonly command: string | null;
  readonly timestamp: number | null;
}

export interface CastStats {
  events: number;
  output: number;
  input: number;
  markers: number;
  resizes: number;
  exitCode: number | null;
  durationMs: number;
  /** Lines that were not valid events (skipped, counted). */
  bad: number;
}

const MAX_LINE = 16 << 20;

/** Whether a file's first bytes look like an asciicast header. */
export function looksLikeCast(head: Uint8Array): boolean {
  const line = Buffer.from(head).toString('utf8').split('\n', 1)[0].trim();
  if (!line.startsWith('{')) return false;
  try {
    const h = JSON.parse(line) as { version?: unknown };
    return h.version === 2 || h.version === 3;
  } catch {
    return false;
  }
}

/** Parses the header line. */
export function parseCastHeader(line: string): CastHeader {
  let h: Record<string, unknown>;
  try {
    h = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error('asciicast: the first line is not a JSON header');
  }
  // The error reaches the renderer: it names the version only when it is a number (no bytes of the file echoed).
  if (h.version !== 2 && h.version !== 3) throw new Error(`asciicast: unsupported version${typeof h.version === 'number' && Number.isSafeInteger(h.version) ? ` ${h.version}` : ''} (2 and 3 are read)`);
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const term = (h.term ?? {}) as Record<string, unknown>;
  const env = (h.env ?? {}) as Record<string, unknown>;
  return {
    version: h.version,
    cols: h.version === 2 ? num(h.width) : num(term.cols),
    rows: h.version === 2 ? num(h.height) : num(term.rows),
    term: h.version === 2 ? str(env.TERM) : str(term.type),
    title: str(h.title),
    command: str(h.command),
    timestamp: num(h.timestamp),
  };
}

/** The header and the output events of a cast file, streamed line by line. */
export async function readCast(path: string): Promise<{ header: CastHeader; events: AsyncGenerator<IngestEvent>; stats: CastStats }> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  const it = rl[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) {
    rl.close();
    throw new Error('asciicast: empty file');
  }
  const header = parseCastHeader(first.value);
  const stats: CastStats = { events: 0, output: 0, input: 0, markers: 0, resizes: 0, exitCode: null, durationMs: 0, bad: 0 };
  const enc = new TextEncoder();
  async function* events(): AsyncGenerator<IngestEvent> {
    let t = 0;
    try {
      for (let r = await it.next(); !r.done; r = await it.next()) {
        const line = r.value.trim();
        if (!line || (header.version === 3 && line.startsWith('#'))) continue;
        if (line.length > MAX_LINE) {
          stats.bad++;
          continue;
        }
        let ev: unknown;
        try {
          ev = JSON.parse(line);
        } catch {
          stats.bad++;
          continue;
        }
        if (!Array.isArray(ev) || ev.length < 3 || typeof ev[0] !== 'number' || !Number.isFinite(ev[0]) || typeof ev[1] !== 'string' || typeof ev[2] !== 'string') {
          stats.bad++;
          continue;
        }
        stats.events++;
        const seconds = ev[0];
        t = header.version === 2 ? seconds * 1000 : t + seconds * 1000;
        stats.durationMs = Math.max(stats.durationMs, t);
        switch (ev[1]) {
          case 'o': {
            const bytes = enc.encode(ev[2]);
            stats.output += bytes.length;
            yield { stream: 'stdout', bytes, tMs: t };
            break;
          }
          case 'i':
            stats.input++;
            break;
          case 'm':
            stats.markers++;
            break;
          case 'r':
            stats.resizes++;
            break;
          case 'x':
            if (/^-?\d{1,9}$/.test(ev[2])) stats.exitCode = Number(ev[2]);
            break;
          default:
            stats.bad++;
        }
      }
    } finally {
      rl.close();
    }
  }
  return { header, events: events(), stats };
}
