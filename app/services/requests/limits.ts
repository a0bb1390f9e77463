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
