// Decoded payloads under a grant (#39 item 7): the removed spans of a stretch that carry something
// worth reading — OSC 52 clipboard writes, OSC 8 link targets, OSC 0/1/2 titles, text hidden in
// tag characters — found in the index, their raw bytes read and decoded (payload-decode.ts), shown
// as caret notation. Main's dispatcher calls this only for a caller's grant, with its range: only
// spans wholly inside it are read.
import type { DecodedPayload, PayloadPage } from '../../../shared/bridge/types';
import { SpanClass } from '../../../shared/parser';
import { readRawRange } from '../raw/read';
import { Budget } from './budget';
import { DECODED_OSC, decodeOsc, decodeTags, MAX_PAYLOAD_BYTES, MAX_SPAN_HEAD } from './payload-decode';
import { spansOverlapping, type IndexedSpan } from './queries';
import type { IndexReader } from './reader';

/** Payloads one answer lists at most (ask again from `next`). */
export const MAX_PAYLOADS_PER_CALL = 500;
/** Spans looked at per answer at most. */
const MAX_SPANS_SCANNED = 20_000;

const isTag = (s: IndexedSpan): boolean => s.cls === SpanClass.Invisible && s.code >= 0xe0000 && s.code <= 0xe007f;

/**
 * The decoded payloads of the spans that overlap raw `[a, b)` and lie wholly inside `[lo, hi)`,
 * in raw order; `next` is where to ask again when the answer was cut (null: all listed).
 * A run of tag characters (adjacent spans) is one payload.
 */
export async function decodedPayloads(r: IndexReader, rawPath: string, a: number, b: number, lo: number, hi: number, budget = Budget.none): Promise<PayloadPage> {
  const from = Math.max(a, lo);
  const to = Math.min(b, hi);
  if (from >= to) return { payloads: [], next: null };
  const { spans, more } = await spansOverlapping(r, from, to, MAX_SPANS_SCANNED, false, budget);
  const out: DecodedPayload[] = [];
  let run: { first: IndexedSpan; end: number; cps: number[]; count: number } | null = null;
  const flush = (): void => {
    if (!run) return;
    out.push({ ...decodeTags(run.cps, run.count), offset: run.first.offset, length: run.end - run.first.offset, span: run.first.index });
    run = null;
  };
  let next: number | null = null;
  for (const s of spans) {
    budget.check();
    if (s.offset < lo || s.offset + s.length > hi) continue;
    if (run && (!isTag(s) || s.offset !== run.end)) flush();
    if (out.length >= MAX_PAYLOADS_PER_CALL) {
      next = s.offset;
      break;
    }
    if (isTag(s)) {
      run ??= { first: s, end: s.offset, cps: [], count: 0 };
      if (run.cps.length < MAX_PAYLOAD_BYTES) run.cps.push(s.code);
      run.count++;
      run.end = s.offset + s.length;
    } else if (s.cls === SpanClass.Osc && DECODED_OSC.has(s.code)) {
      const cut = s.length > MAX_SPAN_HEAD;
      const head = await readRawRange(rawPath, s.offset, s.offset + Math.min(s.length, MAX_SPAN_HEAD));
      const d = decodeOsc(head, cut || head.length < s.length);
      if (d) out.push({ ...d, offset: s.offset, length: s.length, span: s.index });
    }
  }
  flush();
  // The scan stopped at its limit: the rest starts after the last span it saw.
  if (next === null && more > 0 && spans.length > 0) {
    const last = spans[spans.length - 1];
    next = last.offset + last.length < to ? last.offset + last.length : null;
  }
  return { payloads: out, next };
}
