/**
 * Canonical JSON for hashing: object keys sorted (by UTF-16 code units, as Array#sort does),
 * no whitespace, JSON.stringify's escaping for strings and numbers. Two writers that agree on
 * the value agree on the bytes. Rejects values JSON cannot represent exactly (undefined,
 * functions, non-finite numbers, bigint) instead of silently dropping them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  throw new TypeError(`canonicalJson: cannot encode ${typeof value}`);
}
