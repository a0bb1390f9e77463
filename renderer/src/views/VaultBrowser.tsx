// The vault browser: every record with its artifacts (sanitized title, digest, size, removal
// summary, stream, exit status). Enter or double-click opens one; "Open file…" imports.
import { useEffect, useRef, type KeyboardEvent } from 'react';
import type { ArtifactSummary, RecordSummary } from '../../../shared/bridge/types';
import { loadVault, openArtifact, openFile } from '../actions';
import { counted, humanSize } from '../lib/spans';
import { loadRequests, openRequests, useArtifact, useRequests } from '../stores';

function exitText(r: RecordSummary): { text: string; bad: boolean } {
  if (r.signal) return { text: `signal ${r.signal}`, bad: true };
  if (r.exitCode === null) return { text: r.source === 'capture' ? '—' : 'import', bad: false };
  return { text: `exit ${r.exitCode}`, bad: r.exitCode !== 0 };
}

function RemovalSummaryCell({ a }: { a: ArtifactSummary }) {
  const r = a.removal;
  if (r.removedSpans === 0 && !r.withheldToEnd && !r.ambiguous) return <span className="clean-badge">clean</span>;
  return (
    <span className="removal">
      <strong>{r.removedSpans.toLocaleString('en-US')}</strong> spans · {humanSize(r.removedBytes)} removed
      {r.top.slice(0, 3).map((t) => (
        <span key={t.key} className="tag">{t.key} ×{t.count.toLocaleString('en-US')}</span>
      ))}
      {r.truncated && <span className="tag warn">truncated</span>}
      {r.ambiguous > 0 && <span className="tag warn" title="Stretches where a UTF-8 and an 8-bit terminal read the bytes differently">{r.ambiguous.toLocaleString('en-US')} ambiguous</span>}
      {r.withheldToEnd && <span className="tag warn" data-testid="withheld-to-end" title="The two terminal readings still disagreed at the end: no text from there on was kept">withheld to end</span>}
    </span>
  );
}

export function VaultBrowser() {
  const { vault, records, loading, error } = useArtifact();
  const first = useRef<HTMLTableRowElement | null>(null);
  const pending = useRequests((s) => s.items.filter((r) => r.state === 'pending').length);
  useEffect(() => {
    if (!vault && !loading) void loadVault();
  }, [vault, loading]);
  // The queue's pending count on the Requests button: what a reviewer has to decide.
  useEffect(() => {
    if (vault) void loadRequests();
  }, [vault]);
  useEffect(() => {
    first.current?.focus();
  }, [records.length]);

  const rows = records.flatMap((r) => r.artifacts.map((a) => ({ r, a })));
  const onKey = (e: KeyboardEvent<HTMLTableRowElement>, r: RecordSummary, a: ArtifactSummary) => {
    if (e.key === 'Enter') void openArtifact(r, a);
    else if (e.key === 'ArrowDown') (e.currentTarget.nextElementSibling as HTMLElement | null)?.focus();
    else if (e.key === 'ArrowUp') (e.currentTarget.previousElementSibling as HTMLElement | null)?.focus();
    else return;
    e.preventDefault();
  };
  return (
    <main className="vault-browser" data-testid="vault-browser" aria-label="Vault browser">
      <header className="vault-head">
        <div>
          <h1>Vault</h1>
          <p className="muted">
            {vault ? <>{vault.root}{vault.demo && <span className="tag">demo vault</span>} · <span data-testid="vault-counts">{counted(vault.records, 'record')} · {counted(rows.length, 'stream')}</span></> : 'Opening…'}
          </p>
        </div>
        <div className="vault-actions">
          <button type="button" onClick={() => openRequests(true)} title="Agents' requests for bounded extracts of raw bytes" data-testid="requests-button">
            Requests{pending > 0 && <>{' '}<span className="pending-count">{pending} pending</span></>}
          </button>
          <button type="button" onClick={() => void loadVault()}>Refresh</button>
          <button type="button" className="primary" onClick={() => void openFile()}>Open file…</button>
        </div>
      </header>
      {error && <p className="error" role="alert">{error}</p>}
      <table className="records" aria-label="Artifacts in the vault">
        <thead>
          <tr>
            <th scope="col">Captured</th><th scope="col">Command / file</th><th scope="col">Stream</th><th scope="col">Status</th>
            <th scope="col" className="num">Size</th><th scope="col">Digest</th><th scope="col">Removed</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ r, a }, i) => {
            const exit = exitText(r);
            return (
              <tr
                key={a.ref}
                ref={i === 0 ? first : undefined}
                tabIndex={0}
                data-testid="artifact-row"
                data-ref={a.ref}
                aria-label={`${r.title}, ${a.stream}, ${humanSize(a.size)}`}
                onDoubleClick={() => void openArtifact(r, a)}
                onKeyDown={(e) => onKey(e, r, a)}
              >
                <td className="mono">{r.createdAt.replace('T', ' ').replace(/\.\d+Z?$|Z$/, '')}</td>
                <td>
                  <span className="title">{r.title}</span>
                  {r.cwd && <span className="muted small"> in {r.cwd}</span>}
                  {r.rebuilt && <span className="tag warn" title="Rebuilt from decoded text, not byte-exact">rebuilt</span>}
                  {!a.rawAvailable && <span className="tag">raw pruned</span>}
                </td>
                <td><span className={`stream s-${a.stream}`}>{a.stream}</span></td>
                <td className={exit.bad ? 'bad' : ''}>{exit.text}</td>
                <td className="num mono">{humanSize(a.size)}</td>
                <td className="mono digest" title={a.sha256}>{a.sha256.slice(0, 12)}…</td>
                <td><RemovalSummaryCell a={a} /></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && !loading && <p className="muted">No records yet. Capture with <code>airlock capture</code> or use Open file….</p>}
      <p className="hint">↑/↓ to choose, Enter or double-click to open. Titles are sanitized text.</p>
    </main>
  );
}
