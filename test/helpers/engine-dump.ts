// Runs inspect's dump engine (app/cli/inspect/engine.ts) in memory, as `airlock inspect` feeds it.
import { ByteBuffer, type ByteOutput } from '../../app/cli/inspect/bytes-out';
import type { DumpLayout } from '../../app/cli/inspect/dump-layout';
import { DumpEngine } from '../../app/cli/inspect/engine';
import { Sanitizer } from '../../shared/sanitize';

/** Output gathered in memory; written out (appended to `parts`) at `flushAt` like ByteOutput. */
class Collect extends ByteBuffer {
  readonly parts: Buffer[] = [];
  constructor(readonly flushAt: number) {
    super(flushAt + (64 << 10));
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
 * The engine's dump of `bytes` in `layout`, fed `feed` bytes per sanitizer write, written out
 * every `flushAt` bytes; as latin1 text. `done` is given the engine after the dump.
 */
export async function engineDumpText(bytes: Uint8Array, feed: number, flushAt: number, layout: DumpLayout, done?: (engine: DumpEngine) => void): Promise<string> {
  const out = new Collect(flushAt);
  const d = new DumpEngine(out as unknown as ByteOutput, layout);
  const sanitizer = new Sanitizer({ spanLog: d.spans, reuseOutputBuffer: true });
  d.meanings = sanitizer;
  for (let i = 0; i < bytes.length; i += feed) {
    const chunk = bytes.subarray(i, i + feed);
    sanitizer.write(chunk);
    d.append(chunk);
    await d.advance(false);
  }
  sanitizer.end();
  await d.advance(true);
  await out.flush();
  done?.(d);
  return Buffer.concat(out.parts).toString('latin1');
}
