import type { ParserLimits } from '../../shared/parser';
import { parseByteCount } from './size';

/** Reads `--max-string` and `--max-csi` into parser limits (absent flags keep the defaults). */
export function readLimitFlags(values: Readonly<Record<string, string>>): Partial<ParserLimits> {
  const limits: { -readonly [K in keyof ParserLimits]?: number } = {};
  if (values['--max-string']) limits.maxStringBytes = parseByteCount('--max-string', values['--max-string']);
  if (values['--max-csi']) limits.maxCsiParamBytes = parseByteCount('--max-csi', values['--max-csi']);
  return limits;
}
