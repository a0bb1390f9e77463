import type { RedactionPolicy } from './allowlist';
import { readPemBody } from './pem';
import { RULES, shannonEntropy, type Rule } from './rules';
import { findKeys, LOOKALIKE } from './scan';
import { decodeUtf8, utf8Length } from './utf8';

/** A secret found in a text: `[start, end)` in UTF-8 bytes of that text. */
export interface Detection {
  readonly rule: string;
  readonly start: number;
  readonly end: number;
}

/** A private key block still open at the end of the text (its footer may come later). */
export interface OpenKey {
  /** Where the block starts (its header, or the first key line above a footer). */
  readonly start: number;
  /** Where its readable body ends so far. */
  readonly end: number;
}

/** Longest line a pattern is run over at once; longer lines are cut by the Redactor (with context kept). */
export const MAX_LINE_BYTES = 64 * 1024;
/** Text after a key header that is read for its block at most (a longer block is redacted in parts). */
export const MAX_KEY_BYTES = 64 * 1024;
/** Characters around a detection that an allow-line pattern sees. */
const LINE_CONTEXT = 2048;

/** What one pass over a text found; all offsets are UTF-8 byte offsets into the scanned bytes. */
export interface ScanResult {
  readonly detections: Detection[];
  /** Positions of marker look-alikes (three bytes each). */
  readonly lookalikes: number[];
  /** A key block still open at the end of the text, or null. */
  readonly openKey: OpenKey | null;
}

/**
 * Finds the secrets in `bytes[from, end)` (whole lines, normally; `bytes[0, from)` is context):
 * detections are sorted, do not overlap, and start at or after `from`. `policy` removes disabled
 * rules and accepted values; `inKey` says the text continues a key block. One pass over the bytes
 * finds the rules' keys (scan.ts); each rule's pattern then runs once per line holding its key,
 * so the cost stays linear in the text whatever it holds.
 */
export function scanBytes(bytes: Uint8Array, from: number, end: number, policy: RedactionPolicy, inKey = false): ScanResult {
  const found: Detection[] = [];
  const lookalikes: number[] = [];
  let pos = from;
  if (inKey) {
    // The text goes on inside a key block that an earlier part of the stream opened.
    const limit = Math.min(end, from + MAX_KEY_BYTES);
    const text = decodeUtf8(bytes.subarray(from, limit));
    const body = readPemBody(text, 0, true);
    const bodyEnd = from + utf8Length(text, 0, body.end);
    if (body.state === 'open') return { detections: [], lookalikes, openKey: { start: from, end: bodyEnd } };
    if (bodyEnd > from) found.push({ rule: 'private-key', start: from, end: bodyEnd });
    pos = bodyEnd;
  }
  const hits: number[] = [];
  findKeys(bytes, pos, end, (rule, start) => hits.push(rule, start));
  let openKey: OpenKey | null = null;
  // The line of the current hit, and the rules already run on it. Hits come in rising order, so
  // each byte is looked at once to find the lines (a long line with many keys stays linear).
  let lineStart = 0;
  let lineEnd = -1;
  const ran = new Set<number>();
  for (let h = 0; h < hits.length; h += 2) {
    const rule = hits[h];
    const start = hits[h + 1];
    if (rule === LOOKALIKE) {
      if (start >= from) lookalikes.push(start);
      continue;
    }
    if (openKey !== null && start >= openKey.start) break;
    if (start > lineEnd) {
      const floor = lineEnd + 1;
      let ls = start;
      while (ls > floor && bytes[ls - 1] !== 0x0a) ls--;
      lineStart = ls;
      lineEnd = bytes.indexOf(0x0a, start);
      if (lineEnd < 0 || lineEnd > end) lineEnd = end;
      ran.clear();
    }
    const r = RULES[rule];
    if (ran.has(rule) || policy.disabled.has(r.id)) continue;
    ran.add(rule);
    if (r.id === 'private-key') openKey = privateKey(bytes, lineStart, lineEnd, end, Math.max(from, 0), found);
    else runRule(r, bytes, lineStart, lineEnd, found, policy);
  }
  const detections = mergeDetections(found).filter((d) => d.start >= from);
  return { detections, lookalikes, openKey };
}

function runRule(rule: Rule, bytes: Uint8Array, lineStart: number, lineEnd: number, out: Detection[], policy: RedactionPolicy): void {
  const line = decodeUtf8(bytes.subarray(lineStart, lineEnd));
  const ascii = line.length === lineEnd - lineStart;
  if (rule.requires !== undefined && !line.includes(rule.requires)) return;
  const re = rule.pattern;
  re.lastIndex = 0;
  const minEntropy = policy.minEntropy.get(rule.id) ?? rule.minEntropy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) !== null) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const span = m.indices!.groups?.v ?? m.indices!.groups?.w ?? m.indices![0]!;
    const value = line.slice(span[0], span[1]);
    // A value that is one of the rule's own key names is the name of the next field
    // (`token: "api_key": "…"`), not a value: the scan goes on from it, so that field is read too
    // (else the match's end would pass its name, and its value would go unredacted).
    if (isKeyName(rule, value)) {
      re.lastIndex = span[0];
      continue;
    }
    if (rule.plausible !== undefined && !rule.plausible(value)) continue;
    if (minEntropy !== undefined && shannonEntropy(value) < minEntropy) continue;
    if (allowed(rule.id, value, line, span[0], span[1], policy)) continue;
    const s = ascii ? span[0] : utf8Length(line, 0, span[0]);
    const e = ascii ? span[1] : s + utf8Length(line, span[0], span[1]);
    out.push({ rule: rule.id, start: lineStart + s, end: lineStart + e });
  }
}

function isKeyName(rule: Rule, value: string): boolean {
  for (const k of rule.keys) if (k.length === value.length && (rule.caseless ? k.toLowerCase() === value.toLowerCase() : k === value)) return true;
  return false;
}

function allowed(rule: string, value: string, line: string, start: number, end: number, policy: RedactionPolicy): boolean {
  for (const a of policy.allowValue) if ((a.rule === '*' || a.rule === rule) && a.re.test(value)) return true;
  if (policy.allowLine.length === 0) return false;
  const context = line.slice(Math.max(0, start - LINE_CONTEXT), Math.min(line.length, end + LINE_CONTEXT));
  for (const a of policy.allowLine) if ((a.rule === '*' || a.rule === rule) && a.re.test(context)) return true;
  return false;
}

const HEADER_OR_FOOTER = /-----(BEGIN|END) [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Key blocks whose header or footer is on the line `[lineStart, lineEnd)`: pushed as detections,
 * or returned as the open block when one runs to `end` (the end of the text).
 */
function privateKey(bytes: Uint8Array, lineStart: number, lineEnd: number, end: number, floor: number, out: Detection[]): OpenKey | null {
  // The block may go on below the line: read a little of what follows first, all of it (up to
  // MAX_KEY_BYTES) only when the block runs past that, so a text of many headers stays linear.
  for (const ahead of [KEY_PEEK_BYTES, MAX_KEY_BYTES]) {
    const limit = Math.min(end, Math.max(lineEnd, lineStart + ahead));
    const result = keyBlocksOnLine(bytes, lineStart, lineEnd, limit, floor);
    if (result.open !== null && limit < end && ahead === KEY_PEEK_BYTES) continue;
    out.push(...result.found);
    return result.open;
  }
  return null;
}

/** What to read before a key block's end is known: enough for a short key (an Ed25519 key is ~400 bytes). */
const KEY_PEEK_BYTES = 4096;

/**
 * Key blocks whose header or footer is on the line, read from `bytes[lineStart, limit)` (and the
 * key lines above a footer, from `floor` on), and the block that runs to `limit`, if one does.
 */
function keyBlocksOnLine(bytes: Uint8Array, lineStart: number, lineEnd: number, limit: number, floor: number): { found: Detection[]; open: OpenKey | null } {
  const text = decodeUtf8(bytes.subarray(lineStart, limit));
  const ascii = text.length === limit - lineStart;
  const toByte = (c: number): number => lineStart + (ascii ? c : utf8Length(text, 0, c));
  const lineEndChar = ascii ? lineEnd - lineStart : decodeUtf8(bytes.subarray(lineStart, lineEnd)).length;
  const found: Detection[] = [];
  HEADER_OR_FOOTER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HEADER_OR_FOOTER.exec(text)) !== null && m.index < lineEndChar) {
    if (m[1] === 'BEGIN') {
      const body = readPemBody(text, HEADER_OR_FOOTER.lastIndex);
      if (body.state === 'open') return { found, open: { start: toByte(m.index), end: toByte(body.end) } };
      found.push({ rule: 'private-key', start: toByte(m.index), end: toByte(body.end) });
      HEADER_OR_FOOTER.lastIndex = body.end;
    } else {
      // A footer without its header takes the key lines above it when it starts its line.
      const start = text.slice(0, m.index).trim() === '' ? keyLinesAboveBytes(bytes, lineStart, floor) : toByte(m.index);
      found.push({ rule: 'private-key', start, end: toByte(HEADER_OR_FOOTER.lastIndex) });
    }
  }
  return { found, open: null };
}

/**
 * Start of the key lines directly above the line at `lineStart` (not before `floor`, at most
 * MAX_KEY_BYTES / 4 above): the line just above may be short (a key's last line), the ones above
 * it must be full width. Read byte by byte from the footer up, so many footers stay linear.
 */
function keyLinesAboveBytes(bytes: Uint8Array, lineStart: number, floor: number): number {
  const stop = Math.max(floor, lineStart - MAX_KEY_BYTES / 4);
  let start = lineStart;
  let first = true;
  while (start > stop) {
    const lineEnd = start - 1; // the LF that ends the line above
    let k = lineEnd;
    let chars = 0;
    while (k > stop && bytes[k - 1] !== 0x0a && isKeyByte(bytes[k - 1])) {
      k--;
      chars++;
    }
    let lead = k;
    while (lead > stop && (bytes[lead - 1] === 0x20 || bytes[lead - 1] === 0x09)) lead--;
    const atLineStart = lead === 0 || bytes[lead - 1] === 0x0a;
    const body = chars - (bytes[lineEnd - 1] === 0x0d ? 1 : 0);
    if (!atLineStart || lead <= stop && lead > 0 || chars === 0 || chars > 101 || (!first && body < 40)) break;
    start = lead;
    first = false;
  }
  return start;
}

const RULE_ORDER = new Map(RULES.map((r, i) => [r.id, i]));
const ruleOrder = (id: string): number => RULE_ORDER.get(id) ?? RULES.length;

/** A byte a key line may hold: base64, and the CR of a CRLF line end. */
function isKeyByte(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x2b || b === 0x2f || b === 0x3d || b === 0x0d;
}

/**
 * Sorts detections and merges overlapping ones: the one that starts first names the merged span,
 * and of those that start together the rule listed first in RULES (a token's own rule before the
 * rule that found it as the value of `TOKEN=`).
 */
export function mergeDetections(list: Detection[]): Detection[] {
  if (list.length < 2) return list;
  list.sort((a, b) => a.start - b.start || ruleOrder(a.rule) - ruleOrder(b.rule) || b.end - a.end);
  const out: Detection[] = [list[0]];
  for (let i = 1; i < list.length; i++) {
    const d = list[i];
    const last = out[out.length - 1];
    if (d.start < last.end) {
      if (d.end > last.end) out[out.length - 1] = { rule: last.rule, start: last.start, end: d.end };
    } else out.push(d);
  }
  return out;
}
