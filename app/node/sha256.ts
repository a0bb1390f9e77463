import { createHash } from 'node:crypto';
import type { Digest } from '../../shared/sanitize';

/** A sha256 {@link Digest} backed by Node's crypto. */
export function sha256Digest(): Digest {
  const hash = createHash('sha256');
  return {
    update: (bytes) => void hash.update(bytes),
    digest: () => hash.digest('hex'),
  };
}
