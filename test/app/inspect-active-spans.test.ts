// A colour dump's spans still to colour rows (ActiveSpans, parallel arrays) against the plain
// array of objects it replaced: the same spans in the same order after any pushes and drops, the
// same "first span that holds a byte" and the same answer to whether any reaches a row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActiveSpans } from '../../app/cli/inspect/active-spans';
import { SpanQueue } from '../../app/cli/inspect/span-queue';
import type { SpanClass } from '../../shared/parser';

interface Model { start: number; end: number; cls: number }

// Small offsets, so spans end exactly where a drop is (the edge a drop must get right) in most runs.
const op = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), start: fc.nat({ max: 40 }), length: fc.integer({ min: 1, max: 12 }), cls: fc.nat({ max: 11 }) }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat({ max: 52 }) }),
);

describe('inspect: the spans a colour dump keeps for rows to come', () => {
  it('behaves as the filtered array of span objects, through any pushes and drops', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 10, maxLength: 200 }), fc.array(fc.nat({ max: 52 }), { minLength: 1, maxLength: 20 }), (ops, probes) => {
      const active = new ActiveSpans();
      let model: Model[] = [];
      for (const o of ops) {
        if (o.kind === 'push') {
          active.push(o.start, o.start + o.length, o.cls as SpanClass);
          model.push({ start: o.start, end: o.start + o.length, cls: o.cls });
        } else {
          active.dropEnded(o.at);
          model = model.filter((g) => g.end > o.at);
        }
        expect(active.length).toBe(model.length);
      }
      expect(Array.from({ length: active.length }, (_, k) => ({ start: active.start[k], end: active.end[k], cls: active.cls[k] }))).toEqual(model);
      for (const x of probes) {
        expect(active.classAt(x)).toBe(model.find((g) => g.start <= x && x < g.end)?.cls);
        expect(active.reaches(x)).toBe(model.some((g) => g.end > x));
      }
    }));
  });

  it('takes a queue group as its spans: one, or each member of a series in order', () => {
    const queue = new SpanQueue(0, 16);
    // BEL every 2 bytes in one row: a series of 4; then a lone BS.
    for (const o of [0, 2, 4, 6]) queue.add(0 as SpanClass, o, 1, 'BEL bell', 0);
    queue.add(0 as SpanClass, 9, 1, 'BS backspace', 0);
    const to = queue.take(Infinity);
    const active = new ActiveSpans();
    for (let k = 0; k < to; k++) active.pushGroup(queue, k);
    const objects: Model[] = [];
    for (let k = 0; k < to; k++) queue.pushGroups(k, objects as never);
    expect(Array.from({ length: active.length }, (_, k) => ({ start: active.start[k], end: active.end[k], cls: active.cls[k] }))).toEqual(objects.map((g) => ({ start: g.start, end: g.end, cls: g.cls })));
    expect(active.length).toBe(5);
  });
});
