import { MAX_RAW_READ } from '../../../shared/bridge/limits';
import { formatHexRows } from '../../../shared/hex/rows';
import { formatRowText } from '../../../shared/hex/text';
import { readRawRange } from './read';

/** Bytes formatted per step: a multiple of the row width that leaves room for the lookahead read. */
const STEP = Math.floor((MAX_RAW_READ - 64) / 16) * 16;

/**
 * The hex dump of raw bytes `[start, end)` of a vault file, as text lines (`airlock inspect`'s row
 * format: `offset  hex…  |caret|`, inert whatever the bytes), produced a step at a time so a
 * dump of any size is written in bounded memory. Characters cut by the dump's own edges decode
 * with the neighbouring bytes, but only those inside `bounds` (a grant's range): nothing outside
 * what was granted is read.
 */
export async function* hexDumpLines(rawPath: string, start: number, end: number, bounds: readonly [number, number], size: number, header: readonly string[]): AsyncGenerator<string> {
  for (const h of header) yield `# ${h}\n`;
  const digits = Math.max(8, end.toString(16).length);
  let context: Uint8Array | undefined = start > bounds[0] ? await readRawRange(rawPath, Math.max(bounds[0], start - 3), start) : undefined;
  for (let at = start; at < end; at += STEP) {
    const stop = Math.min(end, at + STEP);
    const bytes = await readRawRange(rawPath, at, stop);
    if (bytes.length < stop - at) throw new Error(`the raw file ended at ${at + bytes.length}, before ${stop}`);
    // At the file's end: nothing follows. At the edge of a ranged grant: unknown (not read).
    const lookahead = stop >= size ? new Uint8Array(0) : stop >= bounds[1] ? undefined : await readRawRange(rawPath, stop, Math.min(bounds[1], stop + 3));
    const rows = formatHexRows(bytes, at, { width: 16, context, lookahead });
    let text = '';
    for (const row of rows) text += `${formatRowText(row, { width: 16, offsetDigits: digits })}\n`;
    yield text;
    context = bytes.subarray(Math.max(0, bytes.length - 3));
  }
}
