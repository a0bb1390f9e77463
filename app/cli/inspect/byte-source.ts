import { open } from 'node:fs/promises';
import { CliError, type CliIo } from '../command';
import { readStdin } from '../stdio';

/** Bytes per read when inspecting a file. */
const PAGE = 1 << 20;

/**
 * Yields the bytes of FILE (or stdin for `-`) from offset 0 up to `end`, in pages. Each yielded
 * array is the caller's to keep. A missing, unreadable or non-regular file is a CliError naming it.
 */
export async function* readSource(path: string, io: CliIo, end: number): AsyncGenerator<Uint8Array> {
  let read = 0;
  if (path === '-') {
    for await (const chunk of readStdin(io)) {
      const take = Math.min(chunk.length, end - read);
      yield chunk.slice(0, take);
      read += take;
      if (read >= end) return;
    }
    return;
  }
  let handle;
  try {
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (!stat.isFile()) throw new CliError(`${path} is not a regular file`);
  } catch (err) {
    await handle?.close();
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot open ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    while (read < end) {
      const buf = new Uint8Array(Math.min(PAGE, end - read));
      const { bytesRead } = await handle.read(buf, 0, buf.length, read);
      if (bytesRead === 0) return;
      read += bytesRead;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
