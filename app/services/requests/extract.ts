import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { formatHexRows, formatRowText } from '../../../shared/hex';
import type { ExtractKind, ExtractView } from '../../../shared/bridge/types';
import { canonicalJson } from '../../audit';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { hashFile } from '../../vault/hash-file';
import { RequestError } from './errors';
import { DEFAULT_POLICY, type RedactionPolicy } from '../../../shared/redact';
import { redactText } from '../../redact/text';
import { readRawRange } from '../raw/read';
import { sanitizedRange } from './range-text';
import { HIT_CONTEXT, MAX_EXTRACT_HITS, MAX_EXTRACT_TEXT } from './limits';

/** What to extract from which raw file (the request's fields, already validated). */
export interface ExtractSpec {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly kind: ExtractKind;
  readonly range: readonly [number, number] | null;
  readonly expect: string | null;
  readonly search: string | null;
  /** The vault's redaction policy for a text extract (default: the built-in rules). */
  readonly redaction?: RedactionPolicy;
}

const CHUNK = 1 << 20;

/**
 * Computes a request's extract from the vault's raw file at approval time. The file is re-hashed
 * first: bytes that no longer match the artifact's digest (a damaged or swapped file) release
 * nothing. The result is text only — inert hex rows, a digest, or sanitized text — never bytes.
 */
export async function computeExtract(spec: ExtractSpec): Promise<ExtractView> {
  const actual = await hashFile(spec.path).catch((err: unknown) => {
    if ((err as { code?: string }).code === 'ENOENT') throw new RequestError('not-found', `the raw bytes of restricted:sha256:${spec.sha256} are no longer in the vault (pruned?)`);
    throw err;
  });
  if (actual.sha256 !== spec.sha256 || actual.size !== spec.size) {
    throw new RequestError('mismatch', `the raw file of restricted:sha256:${spec.sha256} hashes to ${actual.sha256} (${actual.size} bytes): nothing released`);
  }
  const range = spec.range;
  switch (spec.kind) {
    case 'hex-range': {
      if (!range) throw new RequestError('bad-request', 'a hex-range extract needs a range');
      const bytes = await readRange(spec.path, range[0], range[1]);
      return { kind: 'hex-range', range: [range[0], range[1]], rows: formatHexRows(bytes, range[0]).map((r) => formatRowText(r)) };
    }
    case 'digest': {
      const digest = range ? await hashRange(spec.path, range[0], range[1]) : actual.sha256;
      const bytes = range ? range[1] - range[0] : actual.size;
      return { kind: 'digest', range: range ? [range[0], range[1]] : null, bytes, sha256: digest, expect: spec.expect, match: spec.expect === null ? null : spec.expect === digest };
    }
    case 'text': {
      const [a, b] = range ?? [0, spec.size];
      // The range as the whole stream reads it (never the range parsed alone: see range-text.ts).
      const { text: utf8, removed } = await sanitizedRange(spec.path, a, b);
      // Extracts go to whoever asked, agents included: through the redaction stage (docs/secrets.md).
      const redacted = redactText(new TextDecoder().decode(utf8), spec.redaction ?? DEFAULT_POLICY);
      const text = redacted.text;
      return {
        kind: 'text',
        range: [a, b],
        text: cutText(text, MAX_EXTRACT_TEXT),
        textTruncated: text.length > MAX_EXTRACT_TEXT,
        removed,
        search: spec.search === null ? null : findHits(text, spec.search),
      };
    }
  }
}

/** The digest and size of an extract as the audit log records them: sha256 of its canonical JSON. */
export function extractDigest(extract: ExtractView): { sha256: string; bytes: number } {
  const json = Buffer.from(canonicalJson(extract as never), 'utf8');
  return { sha256: createHash('sha256').update(json).digest('hex'), bytes: json.length };
}

/** Hits of `term` in the sanitized text: character offsets, 1-based lines, escaped context. */
function findHits(text: string, term: string): NonNullable<Extract<ExtractView, { kind: 'text' }>['search']> {
  const hits: { offset: number; line: number; context: string }[] = [];
  let total = 0;
  let line = 1;
  let counted = 0;
  for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + term.length)) {
    total++;
    if (hits.length >= MAX_EXTRACT_HITS) continue;
    for (let i = text.indexOf('\n', counted); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
    counted = at;
    const context = text.slice(Math.max(0, at - HIT_CONTEXT), at + term.length + HIT_CONTEXT);
    hits.push({ offset: at, line, context: terminalSafeLine(context) });
  }
  return { term, total, hits };
}

/** Cuts at `max` UTF-16 units without splitting a surrogate pair. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = (text.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return text.slice(0, end);
}

/** Raw bytes `[start, end)` (a hex-range extract: at most 64 KiB), through the viewer's reader. */
async function readRange(path: string, start: number, end: number): Promise<Uint8Array> {
  const bytes = await readRawRange(path, start, end);
  if (bytes.length !== end - start) throw new RequestError('bad-request', `range [${start}, ${end}) is past the end of the raw file`);
  return bytes;
}

async function hashRange(path: string, start: number, end: number): Promise<string> {
  const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, end - start)));
    for (let at = start; at < end; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - at), at);
      if (bytesRead === 0) throw new RequestError('bad-request', `range [${start}, ${end}) is past the end of the raw file`);
      hash.update(buf.subarray(0, bytesRead));
      at += bytesRead;
    }
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}
