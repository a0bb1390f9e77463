// Whether a raw-access request's range overlaps a suspected secret (the capture's redaction stage,
// as the artifact's index found it): the review queue warns before a reviewer approves bytes that
// hold a value the text redacts. Places and rule names only (getSecrets): never a value.
import { useEffect, useState } from 'react';
import { MAX_SPAN_RANGE } from '../../../shared/bridge/limits';
import type { RequestView, SecretInfo } from '../../../shared/bridge/types';
import { bridge, errorCode } from '../bridge';

/** What the check found: `checking` until the index answers; `unknown` when it could not tell. */
export type SecretOverlap =
  | { readonly state: 'none' }
  | { readonly state: 'checking' }
  | { readonly state: 'unknown'; readonly why: string }
  | { readonly state: 'found'; readonly count: number; readonly rules: readonly string[]; readonly more: boolean };

/** Bytes of a request's range looked at, at most (custody bounds extracts well below this). */
const MAX_CHECKED = 4 * MAX_SPAN_RANGE;
/** Secrets counted at most. */
const MAX_COUNTED = 1_000;
/** Tries while the index is being built, a second apart. */
const INDEX_TRIES = 60;

async function secretsIn(ref: string, start: number, end: number): Promise<{ list: SecretInfo[]; more: boolean }> {
  const list: SecretInfo[] = [];
  const seen = new Set<number>();
  const stop = Math.min(end, start + MAX_CHECKED);
  for (let at = start; at < stop && list.length < MAX_COUNTED; at += MAX_SPAN_RANGE) {
    for (const s of await bridge().getSecrets(ref, at, Math.min(MAX_SPAN_RANGE, stop - at))) {
      if (!seen.has(s.index)) list.push(s);
      seen.add(s.index);
    }
  }
  return { list, more: stop < end || list.length >= MAX_COUNTED };
}

/** The overlap of request `r`'s range (the whole artifact when it names none) with suspected secrets. */
export function useSecretOverlap(r: RequestView): SecretOverlap {
  const [found, setFound] = useState<SecretOverlap>({ state: 'checking' });
  const [start, end] = r.range ?? [0, r.size];
  useEffect(() => {
    let live = true;
    setFound({ state: 'checking' });
    void (async () => {
      for (let tries = 0; live && tries < INDEX_TRIES; tries++) {
        try {
          const { list, more } = await secretsIn(r.artifact, start, end);
          if (!live) return;
          const rules = [...new Set(list.map((s) => s.rule))].sort();
          setFound(list.length === 0 ? { state: 'none' } : { state: 'found', count: list.length, rules, more });
          return;
        } catch (err) {
          if (errorCode(err) !== 'unavailable') {
            if (live) setFound({ state: 'unknown', why: 'the artifact could not be checked for secrets' });
            return;
          }
          // No index yet: build it (as opening the artifact would), then ask again.
          if (tries === 0) await bridge().startIndex(r.artifact).catch(() => undefined);
          await new Promise((done) => setTimeout(done, 1000));
        }
      }
      if (live) setFound({ state: 'unknown', why: 'the artifact is still being indexed' });
    })();
    return () => {
      live = false;
    };
  }, [r.artifact, start, end]);
  return found;
}

/** What approving would hand out, for a request whose range holds secrets. */
export function overlapWarning(kind: RequestView['kind'], o: Extract<SecretOverlap, { state: 'found' }>): string {
  const what = `${o.more ? 'at least ' : ''}${o.count} suspected secret${o.count === 1 ? '' : 's'} (${o.rules.join(', ')})`;
  if (kind === 'hex-range') return `This range holds ${what}: approving returns their values as hex, which the text view redacts.`;
  if (kind === 'digest') return `This range holds ${what}: its digest lets the requester confirm a guess of them.`;
  return `This range holds ${what}: the text extract shows them redacted.`;
}
