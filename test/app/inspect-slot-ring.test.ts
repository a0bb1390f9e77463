// The slot ring between the parsing thread and the dump thread (app/cli/inspect/slot-ring.ts): a
// producer that finds the ring full waits until a batch of slots is free, not for each slot (each
// wake is a system call on both threads), and a failed ring wakes it at once.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { REFILL_SLOTS, RingFailure, SLOTS, SlotRing } from '../../app/cli/inspect/slot-ring';

/** The ring's state words (slot-ring.ts: FAILED, then each slot's), as the consumer thread sees them. */
const STATE = 4;

/**
 * A consumer on its own thread: frees slots 0, 1, 2, ... one every `gapMs`, `count` of them,
 * then (with `failAfter`) marks the ring failed and wakes every waiter.
 */
function consumer(ring: SlotRing, count: number, gapMs: number, failAfter = false): Worker {
  const code = `
    const { workerData } = require('node:worker_threads');
    const control = new Int32Array(workerData.buffer, 0, ${STATE + SLOTS});
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let s = 0; s < workerData.count; s++) {
      Atomics.wait(pause, 0, 0, workerData.gapMs);
      Atomics.store(control, ${STATE} + s, 0);
      Atomics.notify(control, ${STATE} + s);
    }
    if (workerData.failAfter) {
      Atomics.wait(pause, 0, 0, workerData.gapMs);
      Atomics.store(control, 0, ${RingFailure.Error});
      for (let s = 0; s < ${SLOTS}; s++) Atomics.notify(control, ${STATE} + s);
    }`;
  return new Worker(code, { eval: true, workerData: { buffer: ring.buffer, count, gapMs, failAfter } });
}

function fullRing(): SlotRing {
  const ring = new SlotRing();
  for (let s = 0; s < SLOTS; s++) ring.set(s, 1);
  return ring;
}

describe('slot ring', () => {
  it('a producer that finds the ring full goes on only once a batch of slots is free', async () => {
    const ring = fullRing();
    const worker = consumer(ring, SLOTS, 5);
    // Blocks this thread until the consumer has freed slot 0 and the REFILL_SLOTS - 1 after it.
    expect(ring.waitForFree(0)).toBe(true);
    const free = Array.from({ length: SLOTS }, (_, s) => Atomics.load(ring.control, STATE + s) === 0);
    await worker.terminate();
    expect(REFILL_SLOTS).toBeGreaterThan(1);
    expect(free.slice(0, REFILL_SLOTS)).toEqual(Array(REFILL_SLOTS).fill(true));
  });

  it('a free slot is taken at once, whatever the slots after it hold', () => {
    const ring = fullRing();
    ring.set(5, 0);
    expect(ring.waitForFree(5)).toBe(true);
    expect(Atomics.load(ring.control, STATE + 6)).toBe(1);
  });

  it('a producer waiting on a full ring is woken by a failure, and told so', async () => {
    const ring = fullRing();
    const worker = consumer(ring, 2, 5, true);
    const t0 = performance.now();
    expect(ring.waitForFree(0)).toBe(false);
    // Woken by the failure, not by the wait's own 1 s timeout.
    expect(performance.now() - t0).toBeLessThan(900);
    expect(ring.failure).toBe(RingFailure.Error);
    await worker.terminate();
  });
});
