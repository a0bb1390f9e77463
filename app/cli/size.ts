import { UsageError } from './command';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/**
 * Parses a byte count such as `1048576`, `64K`, `16M` or `1G` (binary units) for the option
 * `name`; anything else, zero, or a value beyond 2^53 is a UsageError naming the option.
 */
export function parseByteCount(name: string, value: string): number {
  const m = /^(\d{1,16})([kmg]?)(i?b)?$/i.exec(value.trim());
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  const n = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`${name} needs a positive byte count like 1048576, 64K, 16M or 1G, not '${value.slice(0, 40)}'`);
  }
  return n;
}
