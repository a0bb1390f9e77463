/** A value allowed in audit details: digests, ids, counts, flags, and lists/maps of them. */
export type AuditValue = string | number | boolean | readonly AuditValue[] | { readonly [key: string]: AuditValue };

/** The action-specific part of an audit entry. */
export type AuditDetails = { readonly [key: string]: AuditValue };

/** Keys the entry itself uses; details may not shadow them. */
export const RESERVED_KEYS: readonly string[] = ['seq', 'ts', 'actor', 'action', 'prev', 'hash'];

const MAX_STRING = 256;
const MAX_DEPTH = 4;
const MAX_ITEMS = 256;
const KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Thrown when details could carry payload bytes or break the entry format. */
export class AuditDetailsError extends Error {
  override readonly name = 'AuditDetailsError';
}

/**
 * Enforces that audit details hold metadata only, never payload: strings of at most 256
 * printable ASCII characters, finite numbers, booleans, and arrays/objects of those (depth ≤ 4,
 * ≤ 256 items each, keys like identifiers). Everything else — control bytes, non-ASCII, long
 * strings that could be captured output, null, undefined — is rejected with the offending path.
 */
export function validateDetails(details: unknown): AuditDetails {
  if (!isPlainObject(details)) throw new AuditDetailsError('audit details must be a plain object');
  for (const key of Object.keys(details)) {
    if (RESERVED_KEYS.includes(key)) throw new AuditDetailsError(`audit details may not use the reserved key '${key}'`);
  }
  check(details, 'details', 0);
  return details as AuditDetails;
}

function check(value: unknown, path: string, depth: number): void {
  if (typeof value === 'string') {
    if (value.length > MAX_STRING) throw new AuditDetailsError(`${path}: string longer than ${MAX_STRING} characters (audit details hold digests and ids, never payload)`);
    if (!PRINTABLE_ASCII.test(value)) throw new AuditDetailsError(`${path}: string contains characters outside printable ASCII`);
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new AuditDetailsError(`${path}: number is not finite`);
    return;
  }
  if (typeof value === 'boolean') return;
  if (depth >= MAX_DEPTH) throw new AuditDetailsError(`${path}: nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    if (value.length > MAX_ITEMS) throw new AuditDetailsError(`${path}: more than ${MAX_ITEMS} items`);
    value.forEach((v, i) => check(v, `${path}[${i}]`, depth + 1));
    return;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length > MAX_ITEMS) throw new AuditDetailsError(`${path}: more than ${MAX_ITEMS} keys`);
    for (const key of keys) {
      if (!KEY.test(key)) throw new AuditDetailsError(`${path}: key is not an identifier (letters, digits, _ . -; at most 64)`);
      check(value[key], `${path}.${key}`, depth + 1);
    }
    return;
  }
  throw new AuditDetailsError(`${path}: ${value === null ? 'null' : typeof value} is not allowed (strings, numbers, booleans, arrays, objects only)`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
