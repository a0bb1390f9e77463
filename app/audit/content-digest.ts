import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * The digest an audit entry commits to for a JSON file that names its own entries in an `audit`
 * member (a review-queue request): sha256 of the canonical JSON of everything but `audit`. The
 * file can point at the entry that vouches for it, and any other change to it breaks the match.
 */
export function contentDigest(value: Readonly<Record<string, unknown>>): string {
  const { audit: _pointer, ...content } = value;
  void _pointer;
  return createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex');
}
