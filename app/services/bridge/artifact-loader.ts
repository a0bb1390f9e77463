import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ArtifactFactory } from './artifact-port';

/**
 * ARTIFACT's factory for plain-Node callers (tests, e2e harness) where esbuild's `airlock:artifact`
 * alias does not apply: `createArtifactService` from app/services/artifact when it exists, else null.
 */
export async function loadArtifactFactory(repoRoot: string): Promise<ArtifactFactory | null> {
  const entry = join(repoRoot, 'app/services/artifact/index.ts');
  if (!existsSync(entry)) return null;
  const mod = (await import(pathToFileURL(entry).href)) as { createArtifactService?: ArtifactFactory };
  return mod.createArtifactService ?? null;
}
