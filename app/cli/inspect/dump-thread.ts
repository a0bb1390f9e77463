import { ByteOutput } from './bytes-out';
import type { DumpLayout } from './dump-layout';
import { DumpEngine } from './engine';
import { FdWriter } from './fd-writer';
import { readMeanings, SlotFlag, SlotRing, SLOTS } from './slot-ring';

/** What the dump thread is started with. */
export interface DumpThreadData {
  /** The slot ring's memory (see SlotRing). */
  readonly buffer: SharedArrayBuffer;
  readonly layout: DumpLayout;
  /** The descriptor the dump is written to (the process's stdout). */
  readonly fd: number;
}

/**
 * The dump thread's work: the dump engine fed from the slot ring, slot after slot, the output
 * written to the descriptor. A slot is given back as soon as its bytes and spans are in the
 * engine, so the parse goes on while the rows are shown. Returns once the final slot is done and
 * the output written; throws what the engine or the output threw.
 */
export async function runDumpThread(data: DumpThreadData): Promise<void> {
  const ring = new SlotRing(data.buffer);
  const out = new ByteOutput(new FdWriter(data.fd));
  const engine = new DumpEngine(out, data.layout);
  const meanings: string[] = [];
  engine.meanings = { spanMeaning: (id) => meanings[id], get spanMeaningCount() { return meanings.length; } };
  for (let s = 0; ; s = (s + 1) % SLOTS) {
    if (!ring.waitFor(s, 1)) return;
    const slot = ring.slots[s];
    readMeanings(slot, meanings);
    engine.addSpans(slot.start, slot.length, slot.kind, slot.meta[1]);
    const flags = slot.meta[2];
    if (flags & SlotFlag.Bytes) engine.append(slot.bytes.subarray(0, slot.meta[0]));
    ring.set(s, 0);
    if (flags & SlotFlag.Bytes) await engine.advance(false);
    if (flags & SlotFlag.Final) {
      await engine.advance(true);
      await out.flush();
      return;
    }
  }
}
