import { createReadStream } from 'node:fs';

/** One line of a file: its 1-based number, its text, and whether a newline ended it. */
export interface FileLine {
  readonly line: number;
  readonly text: string;
  readonly complete: boolean;
  /** Byte offset of the line's first byte in the file. */
  readonly start: number;
}

/**
 * Streams a file's lines without loading the whole file. A final segment without a trailing
 * newline is yielded with `complete: false`, so callers can tell a torn last line from a whole one.
 */
export async function* readLines(path: string): AsyncGenerator<FileLine> {
  let carry: Buffer[] = [];
  let line = 0;
  let lineStart = 0;
  let chunkAt = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      carry.push(chunk.subarray(start, nl));
      yield { line: ++line, text: Buffer.concat(carry).toString('utf8'), complete: true, start: lineStart };
      carry = [];
      start = nl + 1;
      lineStart = chunkAt + start;
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
    chunkAt += chunk.length;
  }
  if (carry.length > 0) yield { line: ++line, text: Buffer.concat(carry).toString('utf8'), complete: false, start: lineStart };
}
