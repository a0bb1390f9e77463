// ARTIFACT's service factory for the main bundle. scripts/build.mjs replaces this module with
// `export { createArtifactService as artifactFactory } from '../services/artifact'` when
// app/services/artifact/index.ts exists; without it the artifact methods answer 'unavailable'.
import type { ArtifactFactory } from '../services/bridge/artifact-port';

export const artifactFactory: ArtifactFactory | null = null;
