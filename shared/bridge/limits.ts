// The bridge's numeric limits, apart from its zod schemas (contract.ts re-exports them): services
// that run in worker threads import these without pulling the schema library into their bundle
// (zod was ~600 KB of the 966 KB index worker, ~50 ms of every worker's start).

/** Largest raw read a single call may ask for (1 MiB). */
export const MAX_RAW_READ = 1 << 20;
/** Largest byte range `getSpans` covers in one call. */
export const MAX_SPAN_RANGE = 4 << 20;
/** Most spans `getSpans` returns in one call (the rest: ask again from the last offset). */
export const MAX_SPANS_PER_CALL = 20_000;
/** Most text lines one `getTextLines` call returns. */
export const MAX_TEXT_LINES = 2_000;
/** Most hits a search returns (the total is still counted). */
export const MAX_SEARCH_HITS = 100_000;
/** Longest reason, note or search pattern accepted. */
export const MAX_NOTE_CHARS = 2_000;
/** Largest text handed to copy or export (32 MiB of hex dump). */
export const MAX_EXPORT_CHARS = 32 << 20;
/** Minimap resolution bounds. */
export const MAX_MINIMAP_BUCKETS = 4_096;
/** Most findings one `getScreen` answer lists. */
export const MAX_SCREEN_FINDINGS = 5_000;
/** Characters of a screen finding's text listed (its offset and length cover all of it). */
export const MAX_SCREEN_FINDING_TEXT = 500;
/** Most sanitized text one `followRunning` call returns (bytes; the rest: ask again from `next`). */
export const MAX_FOLLOW_TEXT = 256 << 10;
