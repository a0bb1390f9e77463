// The slot ring between the parsing thread and the dump thread (app/cli/inspect/slot-ring.ts): a
// producer that finds the ring full waits until a batch of slots is free, not for each slot (each
// wake is a system call on both threads), and a failed ring wakes it at once.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { REFILL_SLOTS, RingFailure, SLOTS, SlotRing } from '../../app/cli/inspect/slot-ring';

/** slot-ring.ts bundled as CommonJS, for a consumer thread that runs the same code as the dump thread. */
function slotRingSource(): string {
  const out = buildSync({ entryPoints: [join(__dirname, '../../app/cli/inspect/slot-ring.ts')], bundle: true, format: 'cjs', platform: 'node', write: false, logLevel: 'silent' });
  return out.outputFiles[0].text;
}

/**
 * A consumer on its own thread, running `body` (CommonJS, with `ring`: the SlotRing over `ring`'s
 * memory, `SLOTS`, `workerData` and `parentPort`) with the ring's own code.
 */
function consumerThread(ring: SlotRing, body: string, data: Record<string, unknown> = {}): Worker {
  const code = `
    const module = { exports: {} };
    (function (module, exports, require) { ${slotRingSource()} })(module, module.exports, require);
    const { SlotRing, SLOTS } = module.exports;
    const { workerData, parentPort } = require('node:worker_threads');
    const ring = new SlotRing(workerData.buffer);
    ${body}`;
  return new Worker(code, { eval: true, workerData: { ...data, buffer: ring.buffer } });
}

/**
 * A consumer that frees slots 0, 1, 2, ... one every `gapMs`, `count` of them, then (with
 * `failAfter`) stops the ring as a failed dump thread does.
 */
function consumer(ring: SlotRing, count: number, gapMs: number, failAfter = false): Worker {
  return consumerThread(ring, `
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let s = 0; s < workerData.count; s++) {
      Atomics.wait(pause, 0, 0, workerData.gapMs);
      ring.set(s, 0);
    }
    if (workerData.failAfter) {
      Atomics.wait(pause, 0, 0, workerData.gapMs);
      ring.fail(${RingFailure.Error});
    }`, { count, gapMs, failAfter });
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
    const free = Array.from({ length: SLOTS }, (_, s) => ring.state(s) === 0);
    await worker.terminate();
    expect(REFILL_SLOTS).toBeGreaterThan(1);
    expect(free.slice(0, REFILL_SLOTS)).toEqual(Array(REFILL_SLOTS).fill(true));
  });

  it('a free slot is taken at once, whatever the slots after it hold', () => {
    const ring = fullRing();
    ring.set(5, 0);
    expect(ring.waitForFree(5)).toBe(true);
    expect(ring.state(6)).toBe(1);
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

describe('slot ring, both sides', () => {
  it('hands over thousands of slots in order with no lost wake-up, each side at times the slower', async () => {
    const HANDOVERS = 4000;
    const ring = new SlotRing();
    // The consumer: the ring's own waitFor and set, as the dump thread runs them; it spins a
    // while on some slots so the producer fills the ring and waits, and not on others so it waits.
    const worker = consumerThread(ring, `
      let timeouts = 0;
      const wait = Atomics.wait;
      Atomics.wait = (...a) => { const r = wait(...a); if (r === 'timed-out') timeouts++; return r; };
      const seen = [];
      for (let s = 0, k = 0; ; s = (s + 1) % SLOTS, k++) {
        if (!ring.waitFor(s, 1)) break;
        const slot = ring.slots[s];
        seen.push(slot.meta[0]);
        const last = slot.meta[2] === 2;
        if (k % 97 < 40) { const t = performance.now(); while (performance.now() - t < 0.05); }
        ring.set(s, 0);
        if (last) break;
      }
      parentPort.postMessage({ timeouts, inOrder: seen.every((v, i) => v === i), count: seen.length });`);
    const result = new Promise<{ timeouts: number; inOrder: boolean; count: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    let timeouts = 0;
    const wait = Atomics.wait;
    Atomics.wait = ((...a: Parameters<typeof Atomics.wait>) => {
      const r = wait(...a);
      if (r === 'timed-out') timeouts++;
      return r;
    }) as typeof Atomics.wait;
    try {
      for (let k = 0; k < HANDOVERS; k++) {
        const s = k % SLOTS;
        expect(ring.waitForFree(s)).toBe(true);
        ring.slots[s].meta[0] = k;
        ring.slots[s].meta[2] = k === HANDOVERS - 1 ? 2 : 0;
        if (k % 89 >= 50) {
          const t = performance.now();
          while (performance.now() - t < 0.05);
        }
        ring.set(s, 1);
      }
    } finally {
      Atomics.wait = wait;
    }
    const consumed = await result;
    await worker.terminate();
    expect(consumed).toEqual({ timeouts: 0, inOrder: true, count: HANDOVERS });
    // A wait that ran out its second is a wake-up that was lost (each costs a second here).
    expect(timeouts).toBe(0);
  }, 60_000);
});
