// The byte under the cursor: every base, both readings, its UTF-8 sequence, and its span.
import { inspectByte } from '../lib/inspect';
import { sliceCached } from '../lib/page-cache';
import { describeSpan, hexOffset } from '../lib/spans';
import { session } from '../session';
import { setPrefs, useArtifact, useGrants, useLayout, useSelection, useView } from '../stores';

export function Inspector() {
  const cursor = useSelection((s) => s.cursor);
  const range = useSelection((s) => s.range);
  const size = useArtifact((a) => a.artifact?.size ?? 0);
  const granted = useGrants((g) => g.grant !== null);
  useView((v) => v.rawVersion);
  useView((v) => v.spanVersion);
  const s = session();
  const from = Math.max(0, cursor - 3);
  const to = Math.min(size, cursor + 4);
  const window = s && granted && size > 0 ? sliceCached(s.pages, from, to - from) : null;
  const span = s?.spans.spanAt(cursor) ?? null;
  const facts = window ? inspectByte(window, from, cursor, span) : null;
  const open = useLayout((l) => l.prefs.inspectorOpen);
  return (
    <section className={`inspector${open ? '' : ' folded'}`} data-testid="inspector" aria-label="Byte inspector">
      <h2>
        <button type="button" className="fold-head" aria-expanded={open} aria-controls="inspector-body" onClick={() => setPrefs({ inspectorOpen: !open })}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> Inspector
        </button>{' '}
        <span className="mono muted">@ 0x{hexOffset(cursor)} ({cursor.toLocaleString('en-US')})</span>
      </h2>
      {open && <div id="inspector-body">
      {range && <p className="small">Selection 0x{hexOffset(range[0])}–0x{hexOffset(range[1] - 1)} · {(range[1] - range[0]).toLocaleString('en-US')} bytes</p>}
      {facts ? (
        <dl className="facts">
          <dt>hex</dt><dd className="mono">{facts.hex}</dd>
          <dt>dec</dt><dd className="mono">{facts.dec}</dd>
          <dt>oct</dt><dd className="mono">{facts.oct}</dd>
          <dt>bin</dt><dd className="mono">{facts.bin}</dd>
          <dt title="A UTF-8 terminal (xterm.js, VTE, kitty…) decodes UTF-8 first">UTF-8 term</dt><dd>{facts.utf8Reading}</dd>
          <dt title="An 8-bit VT500 reads every 0x80–0x9F byte as C1">8-bit VT500</dt><dd>{facts.vt500Reading}</dd>
          <dt>UTF-8</dt>
          <dd>{facts.sequence ? <><span className="mono">{facts.sequence.bytes}</span> → <span className="mono">{facts.sequence.codePoint}</span> <span className="glyph">{facts.sequence.glyph}</span></> : facts.byte < 0x80 ? <span className="mono">one byte, U+{facts.byte.toString(16).toUpperCase().padStart(4, '0')}</span> : <span className="muted">not part of a well-formed sequence</span>}</dd>
        </dl>
      ) : (
        <p className="muted small">{granted ? 'Loading byte…' : 'Byte values need raw access. Span facts below need none.'}</p>
      )}
      <div className="span-facts" data-testid="inspector-span">
        {span ? <><span className="badge">span #{span.index}</span> {describeSpan(span)} <span className="muted mono">0x{hexOffset(span.offset)}+{span.length}</span></> : <span className="muted">Kept text (no annotated span here)</span>}
      </div>
      </div>}
    </section>
  );
}
