import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Vault } from '../../../../app/vault';
import { createArtifactService, type ArtifactServiceOptions } from '../../../../app/services/artifact';
import type { IndexFile, IndexManifest } from '../../../../app/services/artifact/format';
import { IndexReader } from '../../../../app/services/artifact/reader';

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

/** One column of an artifact's index (`spans.bin`, `text.bin`, …) as a query reads it: a file, or a lazy index's pages. */
export async function readColumn(f: Fixture, a: { sha: string; path: string }, name: IndexFile): Promise<Buffer> {
  const dir = join(f.vault.root, 'index', a.sha);
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as IndexManifest;
  const r = await IndexReader.open(dir, {
    sha256: m.sha256, size: m.size, sanitizerFingerprint: m.sanitizerFingerprint, sanitizer: m.sanitizer, pageBytes: m.pageBytes, maxLineBytes: m.maxLineBytes, rawPath: a.path, secretsKey: m.secrets.key,
  });
  try {
    const file = r.files[name];
    return Buffer.from(await file.read(0, file.size));
  } finally {
    await r.close();
  }
}
