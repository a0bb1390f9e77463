import { UsageError } from './command';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** Options for {@link parseByteCount}. */
export interface ByteCountOptions {
  /** Accept 0 (offsets); counts and limits must be positive. */
  readonly allowZero?: boolean;
}

/**
 * The one parser for every byte count and offset on the command line: decimal (`1048576`), hex
 * (`0x40`) or decimal with a binary unit (`64K`, `16M`, `1G`, also `16MiB`). Anything else, zero
 * (unless allowed), or a value beyond 2^53 is a UsageError naming the option.
 */
export function parseByteCount(name: string, value: string, options: ByteCountOptions = {}): number {
  let n = NaN;
  const hex = /^0x([0-9a-f]{1,13})$/i.exec(value);
  const dec = /^(\d{1,16})([kmg]?)(i?b)?$/i.exec(value);
  if (hex) n = parseInt(hex[1], 16);
  else if (dec) n = Number(dec[1]) * UNITS[dec[2].toLowerCase()];
  const min = options.allowZero ? 0 : 1;
  if (!Number.isSafeInteger(n) || n < min) {
    const what = options.allowZero ? 'a byte offset' : 'a positive byte count';
    throw new UsageError(`${name} needs ${what} like 1048576, 0x40, 64K, 16M or 1G, not '${value.slice(0, 40)}'`);
  }
  return n;
}
