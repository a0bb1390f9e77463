// Bounds of the review queue. An extract is a small, deliberate view of raw bytes, never a way to
// page through a whole artifact, and a queue an agent can fill without limit is a denial of service
// on the reviewer.

/** A pending request expires after this long unless decided (24 hours). */
export const DEFAULT_REQUEST_TTL_MS = 24 * 60 * 60_000;
/** Largest range a `hex-range` extract dumps (64 KiB: ~4,096 rows of hex). */
export const MAX_HEX_RANGE = 64 << 10;
/** Largest range a `text` extract runs through the sanitizer (1 MiB). */
export const MAX_TEXT_RANGE = 1 << 20;
/** Most characters of sanitized text an extract returns (the rest is cut, and the cut is stated). */
export const MAX_EXTRACT_TEXT = 256 << 10;
/** Most search hits an extract lists (the total is still counted). */
export const MAX_EXTRACT_HITS = 100;
/** Characters of context either side of a search hit. */
export const HIT_CONTEXT = 40;
/** Longest `--search` term. */
export const MAX_SEARCH_TERM = 200;
/** Longest reason or reviewer note. */
export const MAX_REASON = 2_000;
/** Most pending requests a vault holds at once; more are refused until some are decided. */
export const MAX_PENDING = 100;
/**
 * Shortest range a `digest` extract covers (32 bytes). A released sha256 is a test any guess can be
 * checked against offline: 2 bytes are 65,536 guesses, 8 printable-ASCII bytes about 2^52 — within
 * reach of one GPU. At 32 bytes even text of 4 bits per byte (hex digits) is 2^128 guesses. Bytes
 * the requester can already infer (from the sanitized text around them) do not count toward that,
 * which is why the reviewer is told what a digest reveals (DIGEST_DISCLOSURE).
 */
export const MIN_DIGEST_RANGE = 32;

/** What the reviewer of a digest request is told it releases. */
export const DIGEST_DISCLOSURE =
  'A digest releases no bytes, but it lets the requester confirm any guess of them: for a short range, or bytes they can mostly predict (a version string, a path, a token whose format is known), approving it is as good as releasing them.';
