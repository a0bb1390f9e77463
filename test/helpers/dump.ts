// Runs inspect's dump (app/cli/inspect/dump.ts) in memory, as `airlock inspect` feeds it.
import { ByteBuffer, type ByteOutput } from '../../app/cli/inspect/bytes-out';
import { Dump, type DumpLayout } from '../../app/cli/inspect/dump';
import { SpanQueue } from '../../app/cli/inspect/span-queue';
import { Sanitizer } from '../../shared/sanitize';

/** Output gathered in memory; written out (appended to `parts`) at `flushAt` like ByteOutput. */
class Collect extends ByteBuffer {
  readonly parts: Buffer[] = [];
  constructor(readonly flushAt: number) {
    super(flushAt + 4096);
  }
  get full(): boolean {
    return this.p >= this.flushAt;
  }
  async flush(): Promise<void> {
    this.parts.push(Buffer.from(this.buf.subarray(0, this.p)));
    this.reset();
  }
}

/**
 * The dump of `bytes` in `layout`, fed `feed` bytes per sanitizer write, its output written out
 * every `flushAt` bytes; as latin1 text. The queue groups series of rows as inspect's does (not
 * when colouring).
 */
export async function dumpText(bytes: Uint8Array, feed: number, flushAt: number, layout: DumpLayout): Promise<string> {
  const { offset, windowEnd, width, color } = layout;
  const queue = new SpanQueue(offset, color ? 0 : width, offset, windowEnd);
  const sanitizer = new Sanitizer({ onSpan: queue.add, reuseOutputBuffer: true });
  const out = new Collect(flushAt);
  const d = new Dump(queue, out as unknown as ByteOutput, layout);
  for (let i = 0; i < bytes.length; i += feed) {
    const chunk = bytes.subarray(i, i + feed);
    sanitizer.write(chunk);
    d.append(chunk);
    await d.advance(false);
  }
  sanitizer.end();
  await d.advance(true);
  await out.flush();
  return Buffer.concat(out.parts).toString('latin1');
}
