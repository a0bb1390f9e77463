// The review queue: agents' requests for bounded extracts of raw artifacts, pending first. A dense
// keyboard list (↑/↓ choose, Enter moves to the detail, A approve, D deny) beside the detail.
// Every string is main's escaped text, rendered as text (React never parses it as HTML).
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { loadRequests, openRequests, reviewRequest, useRequests, useView } from '../stores';
import { RequestDetail } from './RequestDetail';
import { rangeLabel, relativeTime } from './request-format';

export function RequestsView() {
  const { items, selected, loading, error, busy } = useRequests();
  const theme = useView((v) => v.theme);
  const list = useRef<HTMLTableSectionElement | null>(null);
  useEffect(() => {
    if (items.length === 0 && !loading) void loadRequests();
    // Once, on open: the list is refreshed by the Refresh button and after each decision.
  }, []);
  useEffect(() => {
    (list.current?.querySelector('tr[aria-selected=true]') as HTMLElement | null)?.focus();
  }, [selected, items.length]);
  const current = items.find((r) => r.id === selected) ?? null;
  const pending = items.filter((r) => r.state === 'pending').length;

  const onKey = (e: KeyboardEvent<HTMLTableRowElement>, id: string) => {
    const i = items.findIndex((r) => r.id === id);
    if (e.key === 'ArrowDown' && i + 1 < items.length) useRequests.setState({ selected: items[i + 1].id });
    else if (e.key === 'ArrowUp' && i > 0) useRequests.setState({ selected: items[i - 1].id });
    else if (e.key === 'Enter') (document.querySelector('[data-testid=request-detail] button, [data-testid=request-detail]') as HTMLElement | null)?.focus();
    else if ((e.key === 'a' || e.key === 'A') && items[i]?.state === 'pending' && !busy) void reviewRequest(id, 'approve');
    else if ((e.key === 'd' || e.key === 'D') && items[i]?.state === 'pending' && !busy) void reviewRequest(id, 'deny');
    else return;
    e.preventDefault();
  };

  return (
    <main className="requests-view" data-testid="requests-view" aria-label="Raw-access requests">
      <header className="vault-head">
        <div>
          <h1>Requests</h1>
          <p className="muted">{pending} pending · {items.length} in the queue · agents' requests for bounded extracts of raw bytes</p>
        </div>
        <div className="vault-actions">
          <button type="button" aria-label="Back to the vault" onClick={() => openRequests(false)}>‹ Vault</button>
          <button type="button" onClick={() => void loadRequests()}>Refresh</button>
          <button type="button" className="theme" aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`} onClick={() => useView.setState({ theme: theme === 'dark' ? 'light' : 'dark' })}>{theme === 'dark' ? '☀' : '☾'}</button>
        </div>
      </header>
      {error && <p className="error" role="alert" data-testid="requests-error">{error}</p>}
      <div className="requests-split">
        <table className="records requests" aria-label="Requests, pending first">
          <thead>
            <tr><th scope="col">State</th><th scope="col">Kind</th><th scope="col">Artifact</th><th scope="col">Range</th><th scope="col">Reason</th><th scope="col">Age</th></tr>
          </thead>
          <tbody ref={list}>
            {items.map((r) => (
              <tr
                key={r.id}
                tabIndex={0}
                data-testid="request-row"
                data-id={r.id}
                data-state={r.state}
                aria-selected={r.id === selected}
                className={r.id === selected ? 'chosen' : ''}
                onClick={() => useRequests.setState({ selected: r.id })}
                onKeyDown={(e) => onKey(e, r.id)}
              >
                <td><span className={`state s-${r.state}`}>{r.state}</span></td>
                <td className="mono">{r.kind}</td>
                <td title={r.artifact}><div className="clamp2"><span className="title">{r.title ?? '—'}</span> <span className="mono muted small">{r.artifact.slice(18, 26)}</span></div></td>
                <td className="mono small"><div className="clamp2">{rangeLabel(r.range)}</div></td>
                <td title={r.reason}><div className="clamp2">{r.reason}</div></td>
                <td className="small muted" title={r.state === 'pending' ? `expires ${r.expiresAt}` : undefined}>{relativeTime(r.createdAt)}{r.state === 'pending' && <><br />expires {relativeTime(r.expiresAt)}</>}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {current ? <RequestDetail key={current.id} r={current} /> : <p className="muted">{loading ? 'Loading…' : 'No requests. Agents queue them with request_raw (MCP) or airlock request.'}</p>}
      </div>
      <p className="hint">↑/↓ to choose, A approve (in Airlock's prompt window), D deny. Reasons are the requesters' words, shown as escaped text.</p>
    </main>
  );
}
