// The sanitized text, virtualized, with removed spans drawn as chips: an element with an icon and
// a class label the app renders, which no text in the artifact can imitate (text is plain spans
// of characters; a chip is a bordered, coloured box with an icon drawn in CSS).
import { memo, useCallback, useEffect, useMemo, useRef, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import type { ScreenFindingView, ScreenView, TextLine, TextPiece } from '../../../shared/bridge/types';
import { copyPlainText, copySelection, selectFromText, selectLine, selectRange } from '../actions';
import { BigList, type RowRenderProps } from '../components/BigList';
import { revealSideways } from '../lib/reveal';
import { ChipView } from '../components/ChipView';
import { chipLabel, describeSpan, hexOffset } from '../lib/spans';
import { bridge } from '../bridge';
import type { SecretFetcher, ValueFetcher } from '../lib/value-cache';
import { markerText } from '../../../shared/redact/marker';
import { session } from '../session';
import { setPrefs, useArtifact, useGrants, useLayout, useScreen, useSearch, useSelection, useView, type ChipDensity } from '../stores';

export const TEXT_ROW_PX = 20;

const DENSITY_HINT: Record<ChipDensity, string> = {
  full: 'removed spans shown as chips',
  balanced: 'removed spans as chips, colour as marks',
  minimal: 'dangerous spans as chips, the rest as marks',
};

const utf8 = new TextEncoder();

/** Raw bytes of the character under the point in a direct text piece (UTF-8 is 1:1 there). */
function rawAtPoint(x: number, y: number, el: HTMLElement, raw: number, text: string): [number, number] | null {
  const doc = el.ownerDocument as Document & { caretPositionFromPoint?: (x: number, y: number) => { offsetNode: Node; offset: number } | null };
  const pos = doc.caretPositionFromPoint?.(x, y);
  if (!pos || !el.contains(pos.offsetNode)) return null;
  const i = Math.min(subStart(pos.offsetNode) + pos.offset, Math.max(0, text.length - 1));
  const ch = String.fromCodePoint(text.codePointAt(i) ?? 32);
  const start = raw + utf8.encode(text.slice(0, i)).length;
  return [start, start + utf8.encode(ch).length];
}

/**
 * Where in its piece's text a text node starts (UTF-16): a piece with text the terminal hid is
 * drawn as several spans, each saying where its text begins (`data-sub`).
 */
function subStart(node: Node): number {
  const sub = (node.nodeType === 3 ? node.parentElement : (node as HTMLElement))?.closest?.('[data-sub]') as HTMLElement | null;
  return sub ? Number(sub.dataset.sub) : 0;
}

/** Raw offset of a DOM point inside a text piece, or null. */
function rawOfPoint(node: Node, offset: number): number | null {
  const el = (node.nodeType === 3 ? node.parentElement : (node as HTMLElement))?.closest?.('[data-piece]') as HTMLElement | null;
  if (!el) return null;
  const line = session()?.text.line(Number(el.dataset.line));
  const piece = line?.pieces[Number(el.dataset.piece)];
  if (!piece) return null;
  if (piece.t === 'chip') return piece.span.offset;
  if (piece.t === 'secret') return piece.secret.offset;
  if (piece.t === 'text' && piece.direct && node.nodeType === 3) return piece.raw + utf8.encode(piece.text.slice(0, subStart(node) + offset)).length;
  return piece.raw;
}

/** The DOM text selection in the text view, mapped to raw `[start, end)`. */
function domSelectionRaw(): [number, number] | null {
  const sel = typeof window !== 'undefined' ? window.getSelection?.() : null;
  if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
  const r = sel.getRangeAt(0);
  const a = rawOfPoint(r.startContainer, r.startOffset);
  const b = rawOfPoint(r.endContainer, r.endOffset);
  if (a === null || b === null) return null;
  return a < b ? [a, b] : b < a ? [b, a + 1] : null;
}

/** The DOM text selection as sanitized text: kept text only (no chip labels, no line numbers). */
function domSelectionText(): string | null {
  const sel = typeof window !== 'undefined' ? window.getSelection?.() : null;
  if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
  const frag = sel.getRangeAt(0).cloneContents();
  // A secret's chip copies as its capture marker, never as its label or a value shown under a grant.
  frag.querySelectorAll<HTMLElement>('.secret-chip').forEach((n) => n.replaceWith(n.dataset.marker ?? ''));
  frag.querySelectorAll('.chip, .ln, .syn, .loading').forEach((n) => n.remove());
  const rows = frag.querySelectorAll('.text-row');
  if (rows.length === 0) return frag.textContent;
  return Array.from(rows, (row) => row.textContent ?? '').join('\n');
}

export function pieceRange(p: TextPiece): [number, number] {
  if (p.t === 'chip') return [p.span.offset, p.span.offset + p.span.length];
  if (p.t === 'secret') return [p.secret.offset, p.secret.offset + Math.max(1, p.secret.length)];
  return [p.raw, p.raw + Math.max(1, p.rawLength)];
}

/** What main's getSpanValues answers for the grant this window holds, or null without one. */
function valueFetcher(): ValueFetcher | null {
  const grant = useGrants.getState().grant;
  return grant ? (offset, length) => bridge().getSpanValues(grant.id, offset, length) : null;
}

/** A removed span: its class and meaning; its value (code point, byte) too once a grant allows it. */
export function Chip({ piece, selected, index, line }: { piece: Extract<TextPiece, { t: 'chip' }>; selected: boolean; index: number; line: number }) {
  return (
    <ChipView
      span={piece.span}
      label={chipLabel(piece.span, session()?.values.valueOf(piece.span, valueFetcher()))}
      selected={selected}
      index={index}
      line={line}
      more={piece.more}
      ariaLabel={`Removed: ${describeSpan(piece.span)}, at offset 0x${hexOffset(piece.span.offset)}${piece.more ? `, and ${piece.more} more` : ''}`}
      title={`${describeSpan(piece.span)} — at 0x${hexOffset(piece.span.offset)}`}
    />
  );
}

/** What main's getSecretValues answers for the grant this window holds, or null without one. */
function secretFetcher(): SecretFetcher | null {
  const grant = useGrants.getState().grant;
  return grant ? (offset, length) => bridge().getSecretValues(grant.id, offset, length) : null;
}

/**
 * A suspected secret in place of its text: an app-drawn chip with a lock and the rule that found it
 * (the capture's redaction stage). Main never sends the value in the text; under a grant that
 * covers the secret the chip asks for it (getSecretValues, audited as a read) and shows it inside
 * the chip, still app-drawn, so it cannot be mistaken for the artifact's text.
 */
export function SecretChip({ piece, selected, index, line }: { piece: Extract<TextPiece, { t: 'secret' }>; selected: boolean; index: number; line: number }) {
  const s = piece.secret;
  const value = session()?.secrets.valueOf(s, secretFetcher());
  const shown = value ? (value.value.length > 80 ? `${value.value.slice(0, 80)}…` : value.value) : null;
  const where = `at offset 0x${hexOffset(s.offset)}, ${s.length} bytes`;
  return (
    <span
      className={`chip secret-chip${shown !== null ? ' revealed' : ''}${selected ? ' sel' : ''}`}
      data-testid="secret-chip" data-piece={index} data-line={line} data-offset={s.offset} data-rule={s.rule} data-marker={piece.continued ? '' : markerText(s.rule)}
      role="button" tabIndex={-1}
      aria-label={`Redacted secret (${s.rule})${piece.continued ? ', continued' : ''}, ${where}${shown !== null ? ', value shown under your grant' : ''}`}
      title={`Suspected secret found by the rule ${s.rule}, ${where}. ${shown !== null ? 'Shown under your raw-access grant.' : 'Its value is shown only under a raw-access grant that covers it.'}`}
    >
      <span className="secret-icon" aria-hidden="true" />
      <span className="chip-cls">{piece.continued ? '…' : ''}{s.rule}</span>
      {shown !== null && <span className="secret-value mono">{shown}</span>}
    </span>
  );
}

/**
 * What every text row shares. Not the selection: a cursor move must not re-render the list (each
 * re-render of react-window's List costs a forced layout); rows subscribe to the part of the
 * selection they draw (see `rowSelection`).
 */
export interface TextRowProps {
  /** Text the terminal hid (marked in place), once the screen reconstruction has run. */
  hidden: HiddenRanges | null;
  hits: readonly number[];
  hitLength: number;
  textVersion: number;
  showChips: boolean;
}

type Sel = { range: readonly [number, number] | null; cursor: number; textLine: number | null };

/**
 * A row's share of the selection as one string (linked or not, and which pieces are selected), so
 * a cursor move re-renders only the rows whose highlighting changes.
 */
export function rowSelection(row: number, line: TextLine | undefined, s: Sel): string {
  const linked = s.textLine === row ? 'L' : '';
  if (!line) return linked;
  const [a, b] = s.range ?? [s.cursor, s.cursor + 1];
  let on = '';
  for (let i = 0; i < line.pieces.length; i++) {
    const [ps, pe] = pieceRange(line.pieces[i]);
    if (ps < b && pe > a) on += `${i},`;
  }
  return `${linked}|${on}`;
}

/** True when some hit `[h, h + len)` overlaps `[s, e)` (hits ascending). */
function anyHit(hits: readonly number[] | undefined, len: number, s: number, e: number): boolean {
  if (!hits || hits.length === 0) return false;
  let lo = 0;
  let hi = hits.length;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (hits[mid] + len <= s) lo = mid + 1;
    else hi = mid;
  }
  return lo < hits.length && hits[lo] < e;
}

/** Raw ranges of printed text the terminal hid (the screen reconstruction's findings), ascending. */
export interface HiddenRanges {
  readonly start: readonly number[];
  readonly end: readonly number[];
  readonly kind: readonly ScreenFindingView['kind'][];
  readonly by: readonly (number | null)[];
}

const HIDDEN_LABEL: Record<ScreenFindingView['kind'], string> = {
  overwritten: 'printed over on screen', erased: 'erased from the screen', concealed: 'concealed on screen (SGR 8)', same_colour: 'drawn in its background colour on screen',
};

/** The first hidden range that ends after `s` (ranges ascending and disjoint). */
function firstHidden(h: HiddenRanges, s: number): number {
  let lo = 0;
  let hi = h.start.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (h.end[mid] <= s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A direct text piece cut where hidden ranges begin and end: each part a span saying where its
 * text starts in the piece (`data-sub`, for the pointer's raw offset); hidden parts marked.
 */
function hiddenParts(text: string, raw: number, h: HiddenRanges, k0: number): ReactNode[] {
  const parts: ReactNode[] = [];
  let k = k0;
  let at = raw;
  let from = 0;
  let inside = -1;
  const flush = (to: number, hid: number) => {
    if (to <= from) return;
    const t = text.slice(from, to);
    parts.push(hid < 0
      ? <span key={from} data-sub={from}>{t}</span>
      : <span key={from} data-sub={from} className={`hid hid-${h.kind[hid]}`} title={`${HIDDEN_LABEL[h.kind[hid]]}${h.by[hid] !== null ? ` by the bytes at 0x${hexOffset(h.by[hid]!)}` : ''}`}>{t}</span>);
    from = to;
  };
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) ?? 0;
    const n = cp > 0xffff ? 2 : 1;
    while (k < h.start.length && h.end[k] <= at) k++;
    const hid = k < h.start.length && h.start[k] <= at ? k : -1;
    if (hid !== inside) {
      flush(i, inside);
      inside = hid;
    }
    at += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += n;
  }
  flush(text.length, inside);
  return parts;
}

export function LinePieces({ line, range, cursor, showChips = true, hits, hitLength = 0, hidden }: {
  line: TextLine; range: readonly [number, number] | null; cursor: number; showChips?: boolean; hits?: readonly number[]; hitLength?: number; hidden?: HiddenRanges | null;
}) {
  const [s, e] = range ?? [cursor, cursor + 1];
  return (
    <>
      {line.pieces.map((p, i) => {
        const [ps, pe] = pieceRange(p);
        const selected = ps < e && pe > s;
        if (p.t === 'chip') return showChips ? <Chip key={i} piece={p} selected={selected} index={i} line={line.line} /> : null;
        if (p.t === 'secret') return <SecretChip key={i} piece={p} selected={selected} index={i} line={line.line} />;
        if (p.t === 'synthetic') {
          return (
            <span key={i} className={`syn${selected ? ' sel' : ''}`} data-piece={i} data-line={line.line} title={`Line break made by the sanitizer from the byte at 0x${hexOffset(p.raw)}`} aria-label="line break made by the sanitizer">
              ↵
            </span>
          );
        }
        // A row is one line: the line's own LF is not drawn (spans after the last LF follow it on the row).
        const text = p.text.endsWith('\n') ? p.text.slice(0, -1) : p.text;
        const k = hidden ? firstHidden(hidden, ps) : -1;
        const touched = hidden !== null && hidden !== undefined && k < hidden.start.length && hidden.start[k] < pe;
        return (
          <span key={i} className={`tp${p.direct ? '' : ' replaced'}${selected ? ' sel' : ''}${anyHit(hits, hitLength, ps, pe) ? ' hit' : ''}${touched && !p.direct ? ` hid hid-${hidden.kind[k]}` : ''}`} data-piece={i} data-line={line.line}>
            {touched && p.direct ? hiddenParts(text, p.raw, hidden, k) : text}
          </span>
        );
      })}
    </>
  );
}

function TextRowInner({ row, style, props: p }: RowRenderProps<TextRowProps>) {
  const line = session()?.text.line(row);
  // Re-renders when this row's highlighting changes, not on every cursor move.
  useSelection((s) => rowSelection(row, line, s));
  const sel = useSelection.getState();
  const linked = sel.textLine === row;
  return (
    <div style={style} className={`text-row${linked ? ' linked' : ''}${line?.continued ? ' cont' : ''}`} data-testid="text-line" data-line={row} role="row" aria-rowindex={row + 1}>
      <span className="ln" role="rowheader">{row + 1}</span>
      <span className="tl" role="gridcell">
        {line ? <LinePieces line={line} range={sel.range} cursor={sel.cursor} showChips={p.showChips} hits={p.hits} hitLength={p.hitLength} hidden={p.hidden} /> : <span className="loading">…</span>}
      </span>
    </div>
  );
}

const TextRow = memo(TextRowInner);
const renderTextRow = (p: RowRenderProps<TextRowProps>) => <TextRow {...p} />;

export function TextView() {
  const totalLines = useArtifact((a) => a.totalLines);
  const ref = useArtifact((a) => a.artifact?.ref);
  const textTop = useView((v) => v.textTop);
  const textVersion = useView((v) => v.textVersion);
  const density = useLayout((l) => l.prefs.chipDensity);

  useEffect(() => {
    // Touch the first line so its page loads before the list measures.
    session()?.text.line(textTop);
  }, [textTop, ref]);

  // A piece selected from anywhere (arrow keys here, a finding, a jump from the hex view) is
  // scrolled into sight sideways once its row is drawn; a few frames are allowed for the list to
  // scroll to the row first.
  const section = useRef<HTMLElement | null>(null);
  useEffect(() => {
    let frame = 0;
    const unsubscribe = useSelection.subscribe((s, was) => {
      if (s.textLine === null || s.textPiece === null || (s.textLine === was.textLine && s.textPiece === was.textPiece)) return;
      cancelAnimationFrame(frame);
      let tries = 8;
      const reveal = () => {
        const list = section.current?.querySelector<HTMLElement>('.biglist-window');
        const piece = list?.querySelector<HTMLElement>(`[data-line="${s.textLine}"][data-piece="${s.textPiece}"]`);
        if (list && piece) revealSideways(list, piece, piece.closest('.text-row')?.querySelector<HTMLElement>('.ln')?.offsetWidth ?? 0);
        else if (--tries > 0) frame = requestAnimationFrame(reveal);
      };
      frame = requestAnimationFrame(reveal);
    });
    return () => {
      unsubscribe();
      cancelAnimationFrame(frame);
    };
  }, []);

  const onTop = useCallback((row: number) => useView.setState({ textTop: row }), []);
  const onVisible = useCallback((rows: number) => useView.setState({ textVisible: rows }), []);
  const onMouseUp = useCallback((e: MouseEvent<HTMLDivElement>) => {
    // A drag over kept text selects the bytes it came from (both ends through the offset map).
    const range = domSelectionRaw();
    if (range) {
      selectRange(range[0], range[1], false);
      return;
    }
    const el = (e.target as HTMLElement).closest?.('[data-piece]') as HTMLElement | null;
    if (!el) return;
    const line = session()?.text.line(Number(el.dataset.line));
    if (!line) return;
    const piece = line.pieces[Number(el.dataset.piece)];
    const at = piece?.t === 'text' && piece.direct ? rawAtPoint(e.clientX, e.clientY, el, piece.raw, piece.text) : null;
    if (at) {
      selectRange(at[0], at[1], false);
      useSelection.setState({ textLine: line.line, textPiece: Number(el.dataset.piece) });
    } else selectFromText(line, Number(el.dataset.piece));
  }, []);
  const onKeyDown = useCallback((e: KeyboardEvent<HTMLDivElement>) => {
    const { textTop: top, textVisible } = useView.getState();
    // Up/Down (PageUp/PageDown, Ctrl+Home/End) move a line cursor: the line is selected (its bytes
    // in the hex view), so Copy and Ctrl+C take what the line holds.
    const step: Record<string, number> = { ArrowUp: -1, ArrowDown: 1, PageUp: -textVisible, PageDown: textVisible };
    const current = useSelection.getState().textLine;
    let target: number | null = null;
    if (e.key in step) target = current === null ? (step[e.key] > 0 ? top : top + textVisible - 1) : current + step[e.key];
    else if (e.key === 'Home' && (e.ctrlKey || e.metaKey)) target = 0;
    else if (e.key === 'End' && (e.ctrlKey || e.metaKey)) target = totalLines - 1;
    if (target !== null) {
      e.preventDefault();
      void selectLine(Math.max(0, Math.min(totalLines - 1, target)));
    } else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      // Walk the pieces (text and chips) of the linked line; each selects its bytes.
      e.preventDefault();
      const sel = useSelection.getState();
      const line = session()?.text.line(sel.textLine ?? top);
      if (!line || line.pieces.length === 0) return;
      const cur = sel.textLine === line.line && sel.textPiece !== null ? sel.textPiece : -1;
      const next = Math.max(0, Math.min(line.pieces.length - 1, cur + (e.key === 'ArrowRight' ? 1 : -1)));
      selectFromText(line, next);
    } else if (e.key === 'Enter') {
      const line = session()?.text.line(useSelection.getState().textLine ?? top);
      if (line && line.pieces.length > 0) selectFromText(line, 0);
    }
  }, [totalLines]);

  const hits = useSearch((q) => q.hits);
  const hitLength = useSearch((q) => q.hitLength);
  const screenView = useScreen((x) => (x.phase === 'ready' ? x.view : null));
  const hidden = useMemo(() => hiddenRangesOf(screenView), [screenView]);
  const rowProps = useMemo<TextRowProps>(() => ({ hits, hitLength, textVersion, showChips: true, hidden }), [hits, hitLength, textVersion, hidden]);

  return (
    <section ref={section} className="text-view" id="text-view" data-testid="text-view" aria-label="Sanitized text" style={{ ['--ln-w' as string]: `${Math.max(4, String(totalLines).length) * 7.6 + 16}px` }}>
      <div className="pane-head">
        <span>Sanitized text</span>
        <span className="muted" title={`${totalLines} lines · ${DENSITY_HINT[density]}`}>{totalLines.toLocaleString('en-US')} lines · {DENSITY_HINT[density]}</span>
        <label className="density">
          <span className="sr-only">Chip density</span>
          <select aria-label="Chip density" value={density} onChange={(e) => setPrefs({ chipDensity: e.target.value as ChipDensity })}
            title="How removed spans are drawn: a chip each, colour as thin marks, or chips only for the dangerous ones (clipboard, links, titles, replies, hidden, invisible, payloads)">
            <option value="full">All chips</option>
            <option value="balanced">Colour as marks</option>
            <option value="minimal">Dangerous only</option>
          </select>
        </label>
      </div>
      <BigList
        totalRows={totalLines}
        rowHeight={TEXT_ROW_PX}
        top={textTop}
        onTop={onTop}
        onVisible={onVisible}
        renderRow={renderTextRow}
        rowProps={rowProps}
        label="Sanitized text lines"
        className="text-list"
        scrollbarTestId="text-scrollbar"
        onKeyDown={onKeyDown}
        listAttrs={{
          role: 'grid', tabIndex: 0, onMouseUp, draggable: false, onDragStart: (e) => e.preventDefault(),
          onCopy: (e) => {
            e.preventDefault();
            const text = domSelectionText();
            if (text) void copyPlainText(text);
            else void copySelection('text');
          },
          'data-testid': 'text-grid',
        }}
      />
    </section>
  );
}

/** The screen view's findings as sorted ranges (null before it ran, or when nothing was hidden). */
function hiddenRangesOf(view: ScreenView | null): HiddenRanges | null {
  if (!view || view.findings.length === 0) return null;
  const sorted = [...view.findings].sort((a, b) => a.offset - b.offset);
  return { start: sorted.map((f) => f.offset), end: sorted.map((f) => f.offset + f.length), kind: sorted.map((f) => f.kind), by: sorted.map((f) => f.by) };
}
