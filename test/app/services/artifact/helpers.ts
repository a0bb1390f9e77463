import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Vault } from '../../../../app/node/vault';
import { createArtifactService, type ArtifactServiceOptions } from '../../../../app/services/artifact';

export interface Fixture {
  readonly dir: string;
  readonly vault: Vault;
  readonly service: ReturnType<typeof createArtifactService>;
  add(bytes: Uint8Array): { sha: string; ref: string; path: string };
  cleanup(): Promise<void>;
}

/** A temp vault whose raw files live in `<dir>/rawfiles/<sha>` (rawPath is the service's only way to them). */
export async function fixture(extra: Partial<ArtifactServiceOptions> = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-artifact-'));
  const vault = await Vault.open(join(dir, 'vault'), { create: true });
  const rawDir = mkdtempSync(join(dir, 'raw-'));
  const service = createArtifactService({ vault, rawPath: (sha) => join(rawDir, sha), inline: true, ...extra });
  return {
    dir,
    vault,
    service,
    add(bytes) {
      const sha = createHash('sha256').update(bytes).digest('hex');
      const path = join(rawDir, sha);
      writeFileSync(path, bytes, { mode: 0o600 });
      return { sha, ref: `restricted:sha256:${sha}`, path };
    },
    async cleanup() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function indexed(f: Fixture, bytes: Uint8Array): Promise<{ sha: string; ref: string; path: string }> {
  const a = f.add(bytes);
  await f.service.startIndex(a.ref);
  const st = await f.service.whenIndexed(a.ref);
  if (st.state !== 'done') throw new Error(`index ${st.state}: ${st.error}`);
  return a;
}
