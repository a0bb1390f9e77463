import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from './errors';

/** Exactly 64 lowercase hex digits: the only digest spelling the vault accepts. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

const REF_PREFIX = 'restricted:sha256:';

/** True when `s` is a canonical sha256 hex digest (64 lowercase hex digits). */
export function isSha256Hex(s: unknown): s is string {
  return typeof s === 'string' && SHA256_HEX.test(s);
}

/**
 * Throws VaultError('bad-ref') unless `s` is a canonical sha256 hex digest. Upper-case hex is
 * rejected on purpose: one spelling per digest keeps content addressing and comparisons exact.
 */
export function assertSha256(s: string): void {
  if (!isSha256Hex(s)) {
    throw new VaultError('bad-ref', `invalid sha256 digest '${terminalSafeLine(String(s).slice(0, 80))}': expected 64 lowercase hex digits`);
  }
}

/** The opaque reference handed to agents for a raw artifact: `restricted:sha256:<hex>`. */
export function formatRef(sha256: string): string {
  assertSha256(sha256);
  return REF_PREFIX + sha256;
}

/**
 * Parses `restricted:sha256:<64 lowercase hex>` and returns the digest. Strict: no whitespace,
 * no other scheme or algorithm, no upper case, nothing after the digest.
 */
export function parseRef(ref: string): { sha256: string } {
  if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX) || !isSha256Hex(ref.slice(REF_PREFIX.length))) {
    throw new VaultError(
      'bad-ref',
      `invalid raw artifact reference '${terminalSafeLine(String(ref).slice(0, 100))}': expected restricted:sha256:<64 lowercase hex digits>`,
    );
  }
  return { sha256: ref.slice(REF_PREFIX.length) };
}
