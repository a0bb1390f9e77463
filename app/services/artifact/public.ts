// What leaves main without a grant: the index's answers with every span's value taken out. A span
// the index holds carries its `code` (the code point of an invisible character, the byte of invalid
// UTF-8, a control's code, a CSI's final byte, an OSC's command number): raw content, which the
// sanitized text removed, so it crosses the bridge only under a grant (`getSpanValues`). These
// projections copy the fields the contract allows by name, so a field added to the index later
// stays in main until someone decides it may leave.
import type { SecretInfo, SpanInfo, TextLine, TextPage, TextPiece } from '../../../shared/bridge/types';

export function publicSpan(s: SpanInfo): SpanInfo {
  return { index: s.index, offset: s.offset, length: s.length, cls: s.cls, meaning: s.meaning, flags: s.flags, terminator: s.terminator };
}

/** A secret as anyone may see it: rule and place, never its value. */
export function publicSecret(s: SecretInfo): SecretInfo {
  return { index: s.index, rule: s.rule, offset: s.offset, length: s.length, textOffset: s.textOffset, textLength: s.textLength };
}

function publicPiece(p: TextPiece): TextPiece {
  if (p.t === 'secret') return { t: 'secret', secret: publicSecret(p.secret), continued: p.continued };
  if (p.t === 'chip') return p.more === undefined ? { t: 'chip', span: publicSpan(p.span) } : { t: 'chip', span: publicSpan(p.span), more: p.more };
  if (p.t === 'text') return { t: 'text', text: p.text, raw: p.raw, rawLength: p.rawLength, direct: p.direct };
  return { t: 'synthetic', text: p.text, raw: p.raw, rawLength: p.rawLength };
}

function publicLine(l: TextLine): TextLine {
  return { line: l.line, textOffset: l.textOffset, rawStart: l.rawStart, rawEnd: l.rawEnd, continued: l.continued, pieces: l.pieces.map(publicPiece) };
}

export function publicTextPage(p: TextPage): TextPage {
  return { firstLine: p.firstLine, totalLines: p.totalLines, lines: p.lines.map(publicLine) };
}
