import type { Digest } from '../../shared/sanitize';

/**
 * A sha256 {@link Digest} backed by Node's crypto. Async because node:crypto is imported on first
 * use: loading it costs milliseconds of start-up a command that needs no digest should not pay.
 */
export async function sha256Digest(): Promise<Digest> {
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256');
  return {
    update: (bytes) => void hash.update(bytes),
    digest: () => hash.digest('hex'),
  };
}
