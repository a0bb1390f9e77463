// `airlock:artifact` is resolved by scripts/build.mjs: ARTIFACT's createArtifactService when
// app/services/artifact/index.ts exists, else null (artifact methods answer 'unavailable').
declare module 'airlock:artifact' {
  import type { ArtifactFactory } from '../services/bridge/artifact-port';
  export const artifactFactory: ArtifactFactory | null;
}
