// Main-side services of the forensic viewer (issue #8): span index, queries, searches, bookmarks,
// chunk log. The bridge dispatcher calls these with validated arguments.
export { createArtifactService, type ArtifactService, type ArtifactServiceOptions } from './service';
export { MAX_CHIPS_PER_GAP } from './queries';
export { INDEX_FORMAT, TERMINATORS, type IndexManifest, type IndexSanitizerOptions } from './format';
