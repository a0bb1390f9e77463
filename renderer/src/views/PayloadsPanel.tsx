// Decoded payloads (#39 item 7): what the removed spans carried — the text an OSC 52 clipboard write
// would have put on the clipboard, the targets of OSC 8 links, window titles, the text hidden in
// tag characters — decoded by main under this window's grant and shown as caret notation (a
// control as `^[`, a bidi override as `<U+202E>`), so nothing decoded can act or reorder. Without
// a grant the panel holds nothing but the way to ask for one.
import { useEffect, useState } from 'react';
import { MAX_SPAN_RANGE } from '../../../shared/bridge/limits';
import type { DecodedPayload, GrantInfo } from '../../../shared/bridge/types';
import { requestRaw, selectRange } from '../actions';
import { bridge, errorCode, errorText } from '../bridge';
import { hexOffset } from '../lib/spans';
import { useArtifact, useGrants } from '../stores';

const KIND_LABEL: Record<DecodedPayload['kind'], string> = {
  clipboard: 'Clipboard (OSC 52)', link: 'Link target (OSC 8)', title: 'Title (OSC 0/1/2)', 'hidden-text': 'Hidden in tag characters',
};
const KINDS = Object.keys(KIND_LABEL) as DecodedPayload['kind'][];

/** Payloads listed at most (main pages them 500 at a time). */
const MAX_LISTED = 2_000;

type Loaded =
  | { readonly state: 'loading' }
  | { readonly state: 'error'; readonly message: string }
  | { readonly state: 'done'; readonly list: readonly DecodedPayload[]; readonly more: boolean };

/** Every payload the grant covers, in raw order, up to MAX_LISTED. */
async function loadAll(grant: GrantInfo, size: number, live: () => boolean): Promise<{ list: DecodedPayload[]; more: boolean }> {
  const [start, end] = grant.range ?? [0, size];
  const list: DecodedPayload[] = [];
  let at = start;
  while (at < end && list.length < MAX_LISTED && live()) {
    const length = Math.min(MAX_SPAN_RANGE, end - at);
    const page = await bridge().getPayloads(grant.id, at, length);
    // A payload that began in the stretch before is listed once.
    for (const p of page.payloads) if (list.length === 0 || p.offset > list[list.length - 1].offset) list.push(p);
    at = page.next ?? at + length;
  }
  return { list: list.slice(0, MAX_LISTED), more: at < end };
}

export function PayloadsPanel() {
  const grant = useGrants((g) => g.grant);
  const phase = useGrants((g) => g.phase);
  const size = useArtifact((a) => a.artifact?.size ?? 0);
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [kind, setKind] = useState<DecodedPayload['kind'] | 'all'>('all');
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!grant) return;
    let live = true;
    setLoaded({ state: 'loading' });
    loadAll(grant, size, () => live).then(
      (r) => live && setLoaded({ state: 'done', ...r }),
      (err: unknown) => {
        if (!live) return;
        // The index is still being built: ask again shortly.
        if (errorCode(err) === 'unavailable') setTimeout(() => live && setAttempt((n) => n + 1), 1000);
        else setLoaded({ state: 'error', message: errorText(err) });
      },
    );
    return () => {
      live = false;
    };
  }, [grant, size, attempt]);

  if (!grant) {
    return (
      <section className="payloads-panel" data-testid="payloads-panel" aria-label="Decoded payloads">
        <div className="payloads-locked" data-testid="payloads-locked">
          <div className="lock-icon" aria-hidden="true" />
          <p>Decoded payloads are raw content: clipboard writes, link targets, titles and text hidden in tag characters are shown only under raw access, and each one shown is audited as a read.</p>
          <button type="button" className="primary" onClick={() => void requestRaw()} disabled={phase === 'asking'}>{phase === 'asking' ? 'Waiting for the prompt…' : 'Request raw access…'}</button>
        </div>
      </section>
    );
  }
  const list = loaded.state === 'done' ? loaded.list : [];
  const shown = kind === 'all' ? list : list.filter((p) => p.kind === kind);
  return (
    <section className="payloads-panel" data-testid="payloads-panel" aria-label="Decoded payloads">
      <p className="muted small">
        Decoded under your grant{grant.range ? ` (0x${hexOffset(grant.range[0])}–0x${hexOffset(grant.range[1])})` : ''}; shown in caret notation: <code>^[</code> is ESC, <code>&lt;U+202E&gt;</code> an invisible or reordering character.
      </p>
      <div className="payload-kinds" role="group" aria-label="Show payloads of kind">
        {(['all', ...KINDS] as const).map((k) => {
          const n = k === 'all' ? list.length : list.filter((p) => p.kind === k).length;
          return <button key={k} type="button" className={kind === k ? 'on' : ''} aria-pressed={kind === k} onClick={() => setKind(k)}>{k === 'all' ? 'All' : KIND_LABEL[k].split(' (')[0]} <span className="count">{n}</span></button>;
        })}
      </div>
      {loaded.state === 'loading' && <p className="muted">Decoding…</p>}
      {loaded.state === 'error' && <p className="error" role="alert">{loaded.message}</p>}
      {loaded.state === 'done' && shown.length === 0 && <p className="muted" data-testid="payloads-empty">No {kind === 'all' ? 'decodable payloads' : KIND_LABEL[kind].toLowerCase()} in the granted range.</p>}
      <ol className="payload-list">
        {shown.map((p) => (
          <li key={`${p.offset}-${p.kind}`} className={`payload k-${p.kind}${p.error ? ' bad' : ''}`} data-testid="payload" data-kind={p.kind}>
            <div className="payload-head">
              <span className="payload-kind">{KIND_LABEL[p.kind]}</span>
              <button type="button" className="link mono" onClick={() => selectRange(p.offset, p.offset + Math.max(1, p.length))} title="Select its bytes">0x{hexOffset(p.offset)}</button>
              <span className="muted small">{p.detail}</span>
            </div>
            {p.error && <p className="payload-error" role="note">{p.error}</p>}
            {p.text !== '' && <pre className="payload-text mono">{p.text}</pre>}
            {p.truncated && <p className="muted small">Cut short: {p.kind === 'hidden-text' ? `${p.bytes.toLocaleString('en-US')} characters in all` : 'the first 4,096 bytes are shown'} ({p.length.toLocaleString('en-US')} raw bytes).</p>}
          </li>
        ))}
      </ol>
      {loaded.state === 'done' && loaded.more && <p className="muted small">The first {MAX_LISTED.toLocaleString('en-US')} payloads are listed.</p>}
    </section>
  );
}
