// The annotation queue of `airlock inspect`: start order, merging of identical neighbours, and
// no merging into a group that was already printed.
import { describe, expect, it } from 'vitest';
import { SpanQueue } from '../../app/cli/inspect/span-queue';
import { SpanClass } from '../../shared/parser';

const starts = (q: SpanQueue, before: number): number[] => q.takeBefore(before).map((g) => g.start);

describe('SpanQueue', () => {
  it('hands out spans in start order even when a sequence completes after a control inside it', () => {
    const q = new SpanQueue();
    q.add(SpanClass.C0, 5, 1, 'CR carriage return', 0); // executed inside the CSI below
    q.add(SpanClass.Csi, 2, 6, 'SGR select graphic rendition', 0);
    q.add(SpanClass.Osc, 9, 4, 'OSC 2 set window title', 0);
    expect(starts(q, 6)).toEqual([2, 5]);
    expect(starts(q, 6)).toEqual([]);
    expect(starts(q, Infinity)).toEqual([9]);
  });

  it('merges adjacent identical spans and counts them', () => {
    const q = new SpanQueue();
    for (let i = 0; i < 5; i++) q.add(SpanClass.Invisible, 10 + 4 * i, 4, 'tag character (ASCII smuggling)', 0);
    q.add(SpanClass.Invisible, 40, 4, 'tag character (ASCII smuggling)', 0); // gap: not adjacent
    const groups = q.takeBefore(Infinity);
    expect(groups.map((g) => [g.start, g.end, g.count])).toEqual([[10, 30, 5], [40, 44, 1]]);
  });

  it('never extends a group that was already taken', () => {
    const q = new SpanQueue();
    q.add(SpanClass.C0, 0, 1, 'BEL bell', 0);
    expect(q.takeBefore(1)).toHaveLength(1);
    q.add(SpanClass.C0, 1, 1, 'BEL bell', 0);
    expect(q.takeBefore(Infinity).map((g) => [g.start, g.count])).toEqual([[1, 1]]);
  });
});

describe('SpanQueue series (a row of evenly spaced equal spans as one group)', () => {
  const BEL = 'BEL bell';
  const BS = 'BS backspace';

  it('keeps each row\'s BEL and BS as two groups, and never lets a series cross a row', () => {
    const q = new SpanQueue(0, 16);
    for (let at = 0; at < 32; at++) q.add(SpanClass.C0, at, 1, at & 1 ? BS : BEL, 0);
    const row = q.take(16);
    expect(row).toBe(2);
    expect([...q.members.subarray(0, 2)]).toEqual([8, 8]);
    expect([...q.stride.subarray(0, 2)]).toEqual([2, 2]);
    // As objects they are the spans themselves, in start order.
    const rest = q.takeBefore(Infinity);
    expect(rest.map((g) => g.start)).toEqual(Array.from({ length: 16 }, (_, k) => 16 + k));
    expect(rest.every((g) => g.count === 1 && g.end === g.start + 1)).toBe(true);
  });

  it('lets the last span of a series leave it when the next span makes a run with it', () => {
    const q = new SpanQueue(0, 16);
    for (const at of [0, 2, 4, 5]) q.add(SpanClass.C0, at, 1, BEL, 0);
    expect(q.takeBefore(Infinity).map((g) => [g.start, g.end, g.count])).toEqual([[0, 1, 1], [2, 3, 1], [4, 6, 2]]);
  });

  it('starts a new group at a different stride, and without a row width forms none', () => {
    const q = new SpanQueue(0, 16);
    for (const at of [0, 2, 5, 8]) q.add(SpanClass.C0, at, 1, BEL, 0);
    expect(q.take(Infinity)).toBe(2);
    expect([...q.members.subarray(0, 2)]).toEqual([2, 2]);
    expect([...q.stride.subarray(0, 2)]).toEqual([2, 3]);
    const plain = new SpanQueue();
    for (const at of [0, 2, 4]) plain.add(SpanClass.C0, at, 1, BEL, 0);
    expect(plain.take(Infinity)).toBe(3);
  });
});
