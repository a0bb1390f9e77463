import type { Writable } from 'node:stream';

/** Writes `data` and waits for the stream to drain when it asks to, so memory stays bounded. */
export function writeAll(stream: Writable, data: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (data.length === 0) return resolve();
    const ok = stream.write(data, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else stream.once('drain', resolve);
  });
}
