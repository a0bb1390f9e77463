// One request of the review queue: what was asked, by whom and why (escaped text), the reviewer's
// actions, and after approval what the action returned. Approve only asks main to open its prompt
// window: the decision is the human's, there.
import { useState } from 'react';
import type { ExtractView, RequestView } from '../../../shared/bridge/types';
import { reviewRequest, useRequests } from '../stores';
import { rangeLabel, relativeTime } from './request-format';
import { overlapWarning, useSecretOverlap } from './secret-overlap';

function Extract({ x }: { x: ExtractView }) {
  if (x.kind === 'hex-range') {
    return (
      <pre className="extract-hex mono" data-testid="request-extract" aria-label="Hex dump returned">{x.rows.join('\n')}</pre>
    );
  }
  if (x.kind === 'digest') {
    return (
      <dl className="extract-digest" data-testid="request-extract">
        <dt>sha256 of {rangeLabel(x.range)}</dt><dd className="mono">{x.sha256}</dd>
        {x.expect && <><dt>expected</dt><dd className="mono">{x.expect} <span className={`tag ${x.match ? '' : 'danger'}`}>{x.match ? 'match' : 'no match'}</span></dd></>}
      </dl>
    );
  }
  return (
    <div data-testid="request-extract">
      <p className="muted small">
        sanitized text; removed {x.removed.spans} spans ({x.removed.bytes} bytes)
        {Object.entries(x.removed.classes).map(([k, n]) => <span key={k} className="tag">{k} ×{n}</span>)}
        {x.textTruncated && <span className="tag warn">cut short</span>}
      </p>
      <pre className="extract-text mono">{x.text}</pre>
      {x.search && (
        <ul className="extract-hits" aria-label="Search hits">
          <li className="muted small">“{x.search.term}”: {x.search.total} hit(s)</li>
          {x.search.hits.map((h) => <li key={h.offset} className="mono small">@{h.offset} line {h.line}: {h.context}</li>)}
        </ul>
      )}
    </div>
  );
}

export function RequestDetail({ r }: { r: RequestView }) {
  const busy = useRequests((s) => s.busy === r.id);
  const [note, setNote] = useState('');
  const pending = r.state === 'pending';
  const overlap = useSecretOverlap(r);
  return (
    <section className="request-detail" data-testid="request-detail" data-id={r.id} aria-label={`Request ${r.id}`}>
      <header className="request-detail-head">
        <h2>{r.kind} · {rangeLabel(r.range)}</h2>
        <span className={`state s-${r.state}`} data-testid="request-state">{r.state}</span>
      </header>
      <dl className="request-facts">
        <dt>Artifact</dt><dd className="mono">{r.artifact.slice('restricted:sha256:'.length, 'restricted:sha256:'.length + 16)}… {r.title && <span className="muted">{r.title}</span>} <span className="muted">({r.size.toLocaleString('en-US')} bytes)</span></dd>
        {r.expect && <><dt>Expects</dt><dd className="mono">{r.expect}</dd></>}
        {r.search !== null && <><dt>Search</dt><dd className="mono">{r.search}</dd></>}
        <dt>Asked by</dt><dd>{r.requester} · {relativeTime(r.createdAt)}</dd>
        <dt>Reason</dt><dd className="request-reason" data-testid="request-reason">{r.reason}</dd>
        {pending ? <><dt>Expires</dt><dd>{relativeTime(r.expiresAt)}</dd></> : r.decidedAt && <><dt>Decided</dt><dd>{r.decidedBy} · {relativeTime(r.decidedAt)}{r.note && <> · “{r.note}”</>}</dd></>}
      </dl>
      {overlap.state === 'found' && (
        <p className={`secret-overlap ${r.kind === 'text' ? 'note' : 'warn'}`} data-testid="secret-overlap" role={pending ? 'alert' : undefined}>
          <span className="secret-icon" aria-hidden="true" /> {overlapWarning(r.kind, overlap)}
        </p>
      )}
      {overlap.state === 'unknown' && pending && <p className="secret-overlap note" data-testid="secret-overlap">Not checked for secrets: {overlap.why}.</p>}
      {pending && (
        <div className="request-actions">
          <input aria-label="Note for a denial" placeholder="Note (recorded with a denial)" value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
          <button type="button" onClick={() => void reviewRequest(r.id, 'deny', note)} disabled={busy}>Deny</button>
          <button type="button" className="primary" onClick={() => void reviewRequest(r.id, 'approve')} disabled={busy} title="Opens Airlock's prompt window: approve there with a reason and the digest digits">
            {busy ? 'Waiting for the prompt…' : 'Approve…'}
          </button>
        </div>
      )}
      {r.state === 'approved' && r.extract && (
        <section className="request-returned" aria-label="What the approval returned">
          <h3>Returned to the requester</h3>
          <Extract x={r.extract} />
        </section>
      )}
      {r.state === 'approved' && !r.extract && <p className="error">The stored extract does not match its audit entry: it is not shown.</p>}
    </section>
  );
}
