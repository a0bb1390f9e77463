import type { SpanLog } from '../../../shared/sanitize';
import { FEED, type SpanMeanings } from './dump-layout';

/*
 * A ring of slots in shared memory between the thread that parses (the producer: bytes as the
 * sanitizer reads them, the spans it records, the meanings they name) and the thread that dumps
 * (the consumer: the dump engine). A slot is free (0) or full (1); each side waits on the state of
 * the slot it needs with Atomics, so neither copies through messages or waits on the other's event
 * loop. A full slot holds: spans (the sanitizer's span log writes straight into it), the meanings
 * numbered since the last slot, and, in the last slot of a chunk, the chunk's bytes: the consumer
 * shows rows only after it has taken every span the chunk's parse reported.
 */

/** Slots in the ring: the producer may be this many slots ahead. */
export const SLOTS = 32;
/**
 * Slots a producer that found the ring full waits to see freed before it goes on. Waking a thread
 * that waits is a system call on each side (a cross-CPU interrupt in a VM); woken for each slot,
 * the parse would pay it up to 512 times for 16 MiB; waiting for a quarter of the ring, 64 times
 * (measured: the run's context switches halve; its wall time does not move beyond this host's noise).
 */
export const REFILL_SLOTS = SLOTS / 4;
/** Bytes of input a slot carries at most: a chunk the dump is fed at once (engine.ts FEED). */
export const SLOT_BYTES = FEED;
/** Spans a slot carries at most (more fill slots of their own: BEL/BS, a span per byte, four a chunk). */
export const SLOT_SPANS = 8 * 1024;
/** Bytes of meaning text a slot carries at most (more go on in the next slots). */
export const SLOT_MEANING_BYTES = 16 * 1024;

/** Slot flags. */
export const enum SlotFlag {
  /** The slot holds a chunk's bytes: the rows they settle are to be shown. */
  Bytes = 1,
  /** The input ended: show every row and span left. */
  Final = 2,
}

/** Control words (Int32): the ring failed (a RingFailure), then each slot's state. */
const FAILED = 0;
const STATE = 4;
const CONTROL_BYTES = (STATE + SLOTS) * 4;
/** A slot: meta (4 f64: bytes, spans, flags, meaning bytes), bytes, span starts and lengths (f64), kinds (i32), meanings. */
const META_BYTES = 32;
const SLOT_SIZE = META_BYTES + SLOT_SPANS * 20 + SLOT_BYTES + SLOT_MEANING_BYTES;

/** Why the ring stopped, in its FAILED word. */
export const enum RingFailure {
  None = 0,
  /** The consumer's output went away (a reader that closed the pipe: `airlock inspect big | head`). */
  OutputClosed = 1,
  /** The consumer failed otherwise (its error comes as a message). */
  Error = 2,
}

/** A slot's views. */
export interface Slot {
  readonly meta: Float64Array;
  readonly bytes: Uint8Array;
  readonly start: Float64Array;
  readonly length: Float64Array;
  readonly kind: Int32Array;
  readonly meanings: Uint8Array;
}

/** The ring over one SharedArrayBuffer (made by the producer, passed to the consumer). */
export class SlotRing {
  readonly control: Int32Array;
  readonly slots: Slot[];

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(CONTROL_BYTES + SLOTS * SLOT_SIZE)) {
    this.control = new Int32Array(buffer, 0, STATE + SLOTS);
    this.slots = Array.from({ length: SLOTS }, (_, s) => {
      const at = CONTROL_BYTES + s * SLOT_SIZE;
      const spans = at + META_BYTES;
      return {
        meta: new Float64Array(buffer, at, 4),
        start: new Float64Array(buffer, spans, SLOT_SPANS),
        length: new Float64Array(buffer, spans + SLOT_SPANS * 8, SLOT_SPANS),
        kind: new Int32Array(buffer, spans + SLOT_SPANS * 16, SLOT_SPANS),
        bytes: new Uint8Array(buffer, spans + SLOT_SPANS * 20, SLOT_BYTES),
        meanings: new Uint8Array(buffer, spans + SLOT_SPANS * 20 + SLOT_BYTES, SLOT_MEANING_BYTES),
      };
    });
  }

  /** Why the ring stopped (RingFailure.None while it runs). */
  get failure(): RingFailure {
    return Atomics.load(this.control, FAILED);
  }

  /** Stops the ring (the consumer, on failure): wakes a producer waiting for a slot. */
  fail(why: RingFailure): void {
    Atomics.store(this.control, FAILED, why);
    for (let s = 0; s < SLOTS; s++) Atomics.notify(this.control, STATE + s);
  }

  /** Waits until slot `s` is in `state` (0 free, 1 full); false when the ring failed meanwhile. */
  waitFor(s: number, state: 0 | 1): boolean {
    for (;;) {
      if (Atomics.load(this.control, FAILED) !== RingFailure.None) return false;
      const now = Atomics.load(this.control, STATE + s);
      if (now === state) return true;
      Atomics.wait(this.control, STATE + s, now, 1000);
    }
  }

  /**
   * The producer's wait for slot `s` to be free. When it is not, the ring is full (the producer
   * fills slots in order, the consumer frees them in order), so it waits until the consumer has
   * freed {@link REFILL_SLOTS} slots from `s` on: slot `s + REFILL_SLOTS - 1` free means all
   * before it are. False when the ring failed meanwhile.
   */
  waitForFree(s: number): boolean {
    if (this.state(s) !== 0 && !this.waitFor((s + REFILL_SLOTS - 1) % SLOTS, 0)) return false;
    return this.waitFor(s, 0);
  }

  /** Slot `s`'s state now: 0 free, 1 full. */
  state(s: number): 0 | 1 {
    return Atomics.load(this.control, STATE + s) as 0 | 1;
  }

  /** Marks slot `s` full (producer) or free (consumer) and wakes the other side. */
  set(s: number, state: 0 | 1): void {
    Atomics.store(this.control, STATE + s, state);
    Atomics.notify(this.control, STATE + s);
  }
}

/** The ring stopped under the producer (see {@link SlotRing.failure}). */
export class RingStopped extends Error {
  constructor(readonly why: RingFailure) {
    super('the dump thread stopped');
  }
}

/**
 * The producer's side: the sanitizer's span log (spans go straight into the current slot; a full
 * slot is sealed and the next one taken), and {@link push} for a chunk's bytes once the sanitizer
 * has written it.
 */
export class RingWriter implements SpanLog {
  start!: Float64Array;
  length!: Float64Array;
  kind!: Int32Array;
  n = 0;
  /** The sanitizer, once made: it names the meanings the kinds number. */
  meanings: SpanMeanings | null = null;
  private current = 0;
  private sentMeanings = 0;

  constructor(private readonly ring: SlotRing) {
    this.take(0);
  }

  /** The span log is full: its slot goes with the spans alone. */
  drain(): void {
    this.seal(0, 0);
  }

  /** The bytes of a chunk the sanitizer has written (at most SLOT_BYTES), with the spans its parse reported. */
  push(chunk: Uint8Array): void {
    this.sendMeanings();
    this.ring.slots[this.current].bytes.set(chunk);
    this.seal(chunk.length, SlotFlag.Bytes);
  }

  /** The input ended. */
  end(): void {
    this.sendMeanings();
    this.seal(0, SlotFlag.Final, false);
  }

  /** Meanings that do not all fit the current slot go first, in slots of their own (rows are shown only after a slot of bytes). */
  private sendMeanings(): void {
    while (this.meanings !== null && this.sentMeanings < this.meanings.spanMeaningCount && !this.meaningsFit()) this.seal(0, 0);
  }

  /** Whether the meanings not sent yet fit one slot. */
  private meaningsFit(): boolean {
    const m = this.meanings as SpanMeanings;
    let bytes = 0;
    for (let id = this.sentMeanings; id < m.spanMeaningCount; id++) bytes += 6 + Buffer.byteLength(m.spanMeaning(id), 'utf8');
    return bytes <= SLOT_MEANING_BYTES;
  }

  private take(s: number): void {
    if (!this.ring.waitForFree(s)) throw new RingStopped(this.ring.failure);
    const slot = this.ring.slots[s];
    this.current = s;
    this.start = slot.start;
    this.length = slot.length;
    this.kind = slot.kind;
    this.n = 0;
  }

  private seal(bytes: number, flags: number, next = true): void {
    const slot = this.ring.slots[this.current];
    slot.meta[0] = bytes;
    slot.meta[1] = this.n;
    slot.meta[2] = flags;
    slot.meta[3] = this.writeMeanings(slot.meanings);
    this.ring.set(this.current, 1);
    if (next) this.take((this.current + 1) % SLOTS);
  }

  /** The meanings numbered since the last slot, as `id (u32) length (u16) UTF-8`; returns the bytes written. */
  private writeMeanings(into: Uint8Array): number {
    const m = this.meanings;
    if (m === null) return 0;
    let p = 0;
    for (; this.sentMeanings < m.spanMeaningCount; this.sentMeanings++) {
      const text = Buffer.from(m.spanMeaning(this.sentMeanings), 'utf8');
      // The rest goes in the next slot (a meaning is a short label: one alone always fits).
      if (p + 6 + text.length > into.length) {
        if (p === 0) throw new Error('dump thread: a span meaning longer than a slot holds');
        break;
      }
      into[p] = this.sentMeanings & 0xff;
      into[p + 1] = (this.sentMeanings >>> 8) & 0xff;
      into[p + 2] = (this.sentMeanings >>> 16) & 0xff;
      into[p + 3] = this.sentMeanings >>> 24;
      into[p + 4] = text.length & 0xff;
      into[p + 5] = text.length >>> 8;
      into.set(text, p + 6);
      p += 6 + text.length;
    }
    return p;
  }
}

/** Reads the meanings of a slot (as RingWriter wrote them) into `into` by number. */
export function readMeanings(slot: Slot, into: string[]): void {
  const b = slot.meanings;
  const end = slot.meta[3];
  for (let p = 0; p < end; ) {
    const id = b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
    const len = b[p + 4] | (b[p + 5] << 8);
    into[id] = Buffer.from(b.buffer as ArrayBuffer, b.byteOffset + p + 6, len).toString('utf8');
    p += 6 + len;
  }
}
