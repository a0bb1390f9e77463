// Limits are named constants with defaults; a caller's bad limit is an error, not a silent change.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, Parser, NoopSink, resolveLimits } from '../../shared/parser';

describe('resolveLimits', () => {
  it('keeps defaults for absent and undefined fields', () => {
    expect(resolveLimits({})).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({ maxStringBytes: undefined, maxCsiParamBytes: 7 })).toEqual({ ...DEFAULT_LIMITS, maxCsiParamBytes: 7 });
  });

  it.each([NaN, -1, 1.5, Infinity])('rejects %s with a RangeError naming the limit', (bad) => {
    expect(() => resolveLimits({ maxStringBytes: bad })).toThrow(/maxStringBytes must be a whole number >= 0/);
    expect(() => new Parser(new NoopSink(), { maxEscIntermediates: bad })).toThrow(RangeError);
  });
});
