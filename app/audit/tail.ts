import type { FileHandle } from 'node:fs/promises';

/** The end of a line-oriented file: its last line and whether the file ends with a newline. */
export interface FileTail {
  /** Last complete or partial line, without its newline; null for an empty file. */
  readonly lastLine: string | null;
  /** False when the file ends mid-line (a torn or truncated append). */
  readonly endsWithNewline: boolean;
  readonly size: number;
}

const BLOCK = 64 * 1024;

/**
 * Reads only the end of the file, block by block backwards, until the start of the last line.
 * The audit log grows forever; append must not read all of it. Lines longer than `maxLine`
 * are an error (entries are small by construction).
 */
export async function readTail(fh: FileHandle, maxLine = 1 << 20): Promise<FileTail> {
  const { size } = await fh.stat();
  if (size === 0) return { lastLine: null, endsWithNewline: true, size };
  const last = Buffer.alloc(1);
  await fh.read(last, 0, 1, size - 1);
  const endsWithNewline = last[0] === 0x0a;
  const end = endsWithNewline ? size - 1 : size;
  const parts: Buffer[] = [];
  let pos = end;
  let collected = 0;
  while (pos > 0) {
    const len = Math.min(BLOCK, pos);
    pos -= len;
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, pos);
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) {
      parts.unshift(buf.subarray(nl + 1));
      break;
    }
    parts.unshift(buf);
    collected += len;
    if (collected > maxLine) throw new Error(`last line of the audit log is longer than ${maxLine} bytes`);
  }
  return { lastLine: Buffer.concat(parts).toString('utf8'), endsWithNewline, size };
}
