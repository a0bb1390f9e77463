// The vault browser: records grouped with their streams (sanitized title, digest, size, status,
// removed spans ranked by danger), filtered by words, danger category and time, and the raw
// access this window still holds. Keyboard: ↑/↓ (Home/End, PageUp/PageDown) choose a stream,
// Enter opens it, / filters, Esc clears the filter. "Open file…" imports a file.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ArtifactSummary, GrantInfo, RecordSummary, RunningSummary } from '../../../shared/bridge/types';
import { DANGER_LABELS, dangerTier, type DangerCategory } from '../../../shared/parser/danger';
import { ThemeButton } from '../components/ThemeButton';
import { liveGrants, loadVault, openArtifact, openFile, revokeGrantById } from '../actions';
import { loadRunning, openRunning } from '../follow';
import { useFollow } from '../stores/follow';
import { artifactDanger, TIME_WINDOWS, triage, vaultCategories, type SortOrder, type TimeWindow } from '../lib/triage';
import { counted, grouped, humanSize } from '../lib/spans';
import { loadRequests, openRequests, setFilter, useArtifact, useRequests, useTriage } from '../stores';

function exitText(r: RecordSummary): { text: string; bad: boolean } {
  if (r.signal) return { text: `signal ${r.signal}`, bad: true };
  if (r.exitCode === null) return { text: r.source === 'capture' ? '—' : 'import', bad: false };
  return { text: `exit ${r.exitCode}`, bad: r.exitCode !== 0 };
}

function DangerTag({ category, count }: { category: DangerCategory; count: number }) {
  const tier = dangerTier(category);
  return (
    <span className={`tag danger-tag tier-${tier}`} data-testid="removal-tag" data-category={category}>
      {DANGER_LABELS[category]} ×{grouped(count)}
    </span>
  );
}

/** What was removed from one stream, most dangerous first (the whole ranked list in the tooltip). */
function RemovalSummaryCell({ a }: { a: ArtifactSummary }) {
  const r = a.removal;
  if (r.removedSpans === 0 && !r.withheldToEnd && !r.ambiguous) return <span className="clean-badge">clean</span>;
  const danger = Object.entries(artifactDanger(a)) as Array<[DangerCategory, number]>;
  const title = r.top.map((t) => `${t.key} ×${t.count}`).join('\n');
  return (
    <span className="removal" title={title}>
      <span className="removal-total"><strong>{grouped(r.removedSpans)}</strong> spans · {humanSize(r.removedBytes)} removed</span>
      {danger.slice(0, 3).map(([c, n]) => <DangerTag key={c} category={c} count={n} />)}
      {danger.length > 3 && <span className="muted small more-kinds">+{danger.length - 3} more kinds</span>}
      {r.truncated && <span className="tag warn">truncated</span>}
      {r.ambiguous > 0 && <span className="tag warn" title="Stretches the terminal readings read differently: not every terminal reading shows this">{r.ambiguous.toLocaleString('en-US')} ambiguous</span>}
      {r.withheldToEnd && <span className="tag warn" data-testid="withheld-to-end" title="The two terminal readings still disagreed at the end: no text from there on was kept">withheld to end</span>}
    </span>
  );
}

/** `2026-12-07T08:15:20.123Z` → [`2026-12-07`, `08:15:20`] (the parts wrap between, never inside). */
function when(iso: string): string[] {
  return iso.replace(/\.\d+Z?$|Z$/, '').split('T');
}

function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The raw access this window holds: it outlives the workspace until it expires or is revoked. */
function GrantList({ grants, records, now, onRevoke }: { grants: readonly GrantInfo[]; records: readonly RecordSummary[]; now: number; onRevoke: (id: string) => void }) {
  if (grants.length === 0) return null;
  return (
    <section className="vault-grants" data-testid="vault-grants" aria-label="Raw access this window holds">
      {grants.map((g) => {
        const record = records.find((r) => r.artifacts.some((a) => a.ref === g.ref));
        const artifact = record?.artifacts.find((a) => a.ref === g.ref);
        return (
          <div key={g.id} className="vault-grant" data-testid="vault-grant" data-ref={g.ref}>
            <span className="grant-dot" aria-hidden="true" />
            <strong>Raw access granted</strong>
            <span className="title">{record?.title ?? (g.running && !g.ref ? `running capture ${g.running.recordId}` : g.ref)}</span>
            {(artifact?.stream ?? g.running?.stream) && <span className={`stream s-${artifact?.stream ?? g.running?.stream}`}>{artifact?.stream ?? g.running?.stream}</span>}
            <span className="muted">{g.range ? `bytes ${g.range[0]}–${g.range[1]}` : g.running && !g.ref ? 'as it arrives' : 'whole artifact'}</span>
            <span>expires in <span className="mono">{countdown(g.expiresAt - now)}</span></span>
            {record && artifact && <button type="button" onClick={() => void openArtifact(record, artifact)}>Open</button>}
            <button type="button" onClick={() => onRevoke(g.id)}>Revoke</button>
          </div>
        );
      })}
    </section>
  );
}

/** How often the browser asks main for running captures (a sealed one then shows as its record). */
const RUNNING_POLL_MS = 2000;

/**
 * A running capture, grouped like a record: a row per stream (text so far), marked running or
 * interrupted; Enter or double-click follows it. It has no digest and no report until it is sealed.
 */
function RunningGroup({ r, onKey }: { r: RunningSummary; onKey: (e: KeyboardEvent<HTMLTableRowElement>, openRow: () => void) => void }) {
  return (
    <tbody className="record-group running-group" data-testid="running-group" data-record={r.id}>
      {r.streams.map((stream, i) => (
        <tr key={stream} tabIndex={0} data-testid="running-row" data-record={r.id} data-stream={stream} aria-label={`${r.title}, ${stream}, ${r.state}`}
          onDoubleClick={() => openRunning(r, stream)}
          onKeyDown={(e) => onKey(e, () => openRunning(r, stream))}>
          {i === 0 && (
            <>
              <td className="mono when" rowSpan={r.streams.length}>{when(r.startedAt).map((part) => <span key={part}>{part} </span>)}</td>
              <td className="what" rowSpan={r.streams.length}>
                <span className="title">{r.title}</span>
                {r.cwd && <span className="muted small"> in {r.cwd}</span>}
              </td>
              <td rowSpan={r.streams.length}>
                <span className={`run-state s-${r.state}`} data-testid="running-state">{r.state === 'running' && <span className="running-dot" aria-hidden="true" />}{r.state}</span>
              </td>
            </>
          )}
          <td><span className={`stream s-${stream}`}>{stream}</span></td>
          <td className="num mono" title="Sanitized text so far">{humanSize(r.textBytes[stream] ?? 0)}</td>
          <td className="mono digest muted">not sealed</td>
          <td className="muted small">counted as it runs: open to follow</td>
        </tr>
      ))}
    </tbody>
  );
}

export function VaultBrowser() {
  const { vault, records, loading, error } = useArtifact();
  const filter = useTriage((t) => t.filter);
  const focusRef = useTriage((t) => t.focusRef);
  const pending = useRequests((s) => s.items.filter((r) => r.state === 'pending').length);
  const table = useRef<HTMLTableElement | null>(null);
  const search = useRef<HTMLInputElement | null>(null);
  const [grants, setGrants] = useState<GrantInfo[]>([]);
  const [now, setNow] = useState(() => Date.now());
  const [notice, setNotice] = useState<string | null>(null);
  const running = useFollow((f) => f.running);

  // Running captures: asked now and every few seconds; one that is gone from the list was sealed
  // (or failed), so the records are read again.
  useEffect(() => {
    let alive = true;
    let ids = new Set<string>();
    const tick = () => void loadRunning().then(() => {
      if (!alive) return;
      const now = new Set(useFollow.getState().running.map((r) => r.id));
      if ([...ids].some((id) => !now.has(id))) void loadVault();
      ids = now;
    });
    tick();
    const t = setInterval(tick, RUNNING_POLL_MS);
    return () => {
      alive = false;
      clearInterval(t);
    };
  }, []);
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const runningShown = running.filter((r) => filter.categories.size === 0 && words.every((w) => [r.title, r.cwd ?? '', r.id].join('\n').toLowerCase().includes(w)));

  useEffect(() => {
    if (!vault && !loading) void loadVault();
  }, [vault, loading]);
  // The queue's pending count on the Requests button: what a reviewer has to decide.
  useEffect(() => {
    if (vault) void loadRequests();
  }, [vault]);
  // Grants: asked once, then the countdown ticks; main is asked again every few seconds.
  useEffect(() => {
    let alive = true;
    let n = 0;
    const refresh = () => void liveGrants().then((g) => alive && setGrants(g));
    refresh();
    const t = setInterval(() => {
      setNow(Date.now());
      if (++n % 5 === 0) refresh();
    }, 1000);
    return () => {
      alive = false;
      clearInterval(t);
    };
  }, []);
  const live = grants.filter((g) => g.expiresAt > now);

  const groups = triage(records, filter, now);
  const categories = vaultCategories(records);
  const streams = records.reduce((n, r) => n + r.artifacts.length, 0);
  const shownStreams = groups.reduce((n, g) => n + g.rows.length + g.empty.length, 0);
  const filtered = filter.text !== '' || filter.categories.size > 0 || filter.time !== 'any';

  // Focus: the row last opened (back from the workspace), else the first row.
  useEffect(() => {
    const rows = table.current?.querySelectorAll<HTMLElement>('[data-testid=artifact-row]');
    if (!rows || rows.length === 0 || document.activeElement === search.current) return;
    const back = focusRef ? [...rows].find((r) => r.dataset.ref === focusRef) : undefined;
    (back ?? rows[0]).focus();
    // Only when the list first appears (or comes back), not on every filter keystroke.
  }, [records.length]);

  const open = (r: RecordSummary, a: ArtifactSummary) => void openArtifact(r, a);
  /** Enter opens the row (a record's stream, or a running capture's to follow); the other keys move between rows of both kinds. */
  const onRowKey = (e: KeyboardEvent<HTMLTableRowElement>, openRow: () => void) => {
    const rows = [...(table.current?.querySelectorAll<HTMLElement>('[data-testid=artifact-row], [data-testid=running-row]') ?? [])];
    const at = rows.indexOf(e.currentTarget);
    const go = (i: number) => rows[Math.max(0, Math.min(rows.length - 1, i))]?.focus();
    if (e.key === 'Enter') openRow();
    else if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(rows.length - 1);
    else if (e.key === 'PageDown') go(at + 10);
    else if (e.key === 'PageUp') go(at - 10);
    else return;
    e.preventDefault();
  };
  const onKey = (e: KeyboardEvent<HTMLElement>) => {
    const typing = (e.target as HTMLElement).closest('input, select, textarea');
    if (e.key === '/' && !typing) {
      e.preventDefault();
      search.current?.focus();
    }
  };
  const toggle = (c: DangerCategory) => {
    const next = new Set(filter.categories);
    if (next.has(c)) next.delete(c);
    else next.add(c);
    setFilter({ categories: next });
  };
  const revoke = (id: string) => {
    void revokeGrantById(id).then(() => {
      setNotice('Raw access revoked; the bytes this window had cached were already dropped.');
      return liveGrants().then(setGrants);
    });
  };

  return (
    <main className="vault-browser" data-testid="vault-browser" aria-label="Vault browser" onKeyDown={onKey}>
      <header className="vault-head">
        <div>
          <h1>Vault</h1>
          <p className="muted">
            {vault ? <>{vault.root}{vault.demo && <span className="tag">demo vault</span>} · <span data-testid="vault-counts">{counted(vault.records, 'record')} · {counted(streams, 'stream')}</span>{running.length > 0 && <> · <span data-testid="running-count">{running.length} running</span></>}</> : 'Opening…'}
          </p>
        </div>
        <div className="vault-actions">
          <button type="button" onClick={() => openRequests(true)} title="Agents' requests for bounded extracts of raw bytes" data-testid="requests-button">
            Requests{pending > 0 && <>{' '}<span className="pending-count">{pending} pending</span></>}
          </button>
          <button type="button" onClick={() => void loadVault()}>Refresh</button>
          <button type="button" className="primary" onClick={() => void openFile()}>Open file…</button>
          <ThemeButton />
        </div>
      </header>
      {error && <p className="error" role="alert">{error}</p>}
      {notice && <p className="notice small" role="status" data-testid="vault-notice">{notice}</p>}
      <GrantList grants={live} records={records} now={now} onRevoke={revoke} />
      <form className="triage" role="search" aria-label="Filter the vault" onSubmit={(e) => e.preventDefault()}>
        <input ref={search} type="search" data-testid="vault-filter" aria-label="Filter by command, file, directory, record id or digest" placeholder="Filter: command, file, directory, id, digest  ( / )"
          value={filter.text} spellCheck={false} autoComplete="off"
          onChange={(e) => setFilter({ text: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              setFilter({ text: '' });
              table.current?.querySelector<HTMLElement>('[data-testid=artifact-row]')?.focus();
            } else if (e.key === 'ArrowDown' || e.key === 'Enter') {
              e.preventDefault();
              table.current?.querySelector<HTMLElement>('[data-testid=artifact-row]')?.focus();
            }
          }} />
        <div className="danger-filter" role="group" aria-label="Show records with spans of these kinds">
          {categories.map(([c, n]) => (
            <button key={c} type="button" className={`tag danger-tag tier-${dangerTier(c)}${filter.categories.has(c) ? ' on' : ''}`} aria-pressed={filter.categories.has(c)}
              data-testid="category-filter" data-category={c} title={`Records with ${DANGER_LABELS[c]}: ${n}`} onClick={() => toggle(c)}>
              {DANGER_LABELS[c]} <span className="muted">{n}</span>
            </button>
          ))}
        </div>
        <select aria-label="Captured" data-testid="vault-time" value={filter.time} onChange={(e) => setFilter({ time: e.target.value as TimeWindow })}>
          {TIME_WINDOWS.map(([t, label]) => <option key={t} value={t}>{label}</option>)}
        </select>
        <select aria-label="Order" data-testid="vault-sort" value={filter.sort} onChange={(e) => setFilter({ sort: e.target.value as SortOrder })}>
          <option value="newest">Newest first</option>
          <option value="danger">Most dangerous first</option>
        </select>
        {filtered && (
          <>
            <span className="muted small" data-testid="vault-shown" role="status">{counted(groups.length, 'record')} · {counted(shownStreams, 'stream')} shown</span>
            <button type="button" className="link" onClick={() => setFilter({ text: '', categories: new Set(), time: 'any' })}>Clear filter</button>
          </>
        )}
      </form>
      <table className="records" aria-label="Artifacts in the vault" ref={table}>
        <thead>
          <tr>
            <th scope="col">Captured</th><th scope="col">Command / file</th><th scope="col">Status</th><th scope="col">Stream</th>
            <th scope="col" className="num">Size</th><th scope="col" className="digest">Digest</th><th scope="col">Removed, most dangerous first</th>
          </tr>
        </thead>
        {runningShown.map((r) => <RunningGroup key={r.id} r={r} onKey={onRowKey} />)}
        {groups.map(({ record: r, rows, empty }) => {
          const exit = exitText(r);
          return (
            <tbody key={r.id} className="record-group" data-testid="record-group" data-record={r.id}>
              {rows.map((a, i) => (
                <tr
                  key={a.ref}
                  tabIndex={0}
                  data-testid="artifact-row"
                  data-ref={a.ref}
                  aria-label={`${r.title}, ${a.stream}, ${humanSize(a.size)}`}
                  onDoubleClick={() => open(r, a)}
                  onKeyDown={(e) => onRowKey(e, () => open(r, a))}
                  onFocus={() => useTriage.setState({ focusRef: a.ref })}
                >
                  {i === 0 && (
                    <>
                      <td className="mono when" rowSpan={rows.length}>{when(r.createdAt).map((part) => <span key={part}>{part} </span>)}</td>
                      <td className="what" rowSpan={rows.length}>
                        <span className="title">{r.title}</span>
                        {r.cwd && <span className="muted small"> in {r.cwd}</span>}
                        {r.rebuilt && <span className="tag warn" title="Rebuilt from decoded text, not byte-exact">rebuilt</span>}
                        {empty.map((e) => (
                          <span key={e.ref} className="tag empty-stream" data-testid="empty-stream" data-stream={e.stream} title={`${e.stream} had no bytes (0 B)`}>{e.stream} empty</span>
                        ))}
                      </td>
                      <td className={exit.bad ? 'bad' : ''} rowSpan={rows.length}>{exit.text}</td>
                    </>
                  )}
                  <td title={`sha256 ${a.sha256}`}>
                    <span className={`stream s-${a.stream}`}>{a.stream}</span>
                    {!a.rawAvailable && <span className="tag">raw pruned</span>}
                    {live.some((g) => g.ref === a.ref) && <span className="tag warn" data-testid="row-granted" title="This window holds raw access to this stream">raw granted</span>}
                  </td>
                  <td className="num mono">{humanSize(a.size)}</td>
                  <td className="mono digest" title={a.sha256}>{a.sha256.slice(0, 12)}…</td>
                  <td><RemovalSummaryCell a={a} /></td>
                </tr>
              ))}
            </tbody>
          );
        })}
      </table>
      {records.length === 0 && !loading && <p className="muted">No records yet. Capture with <code>airlock capture</code>, import with <code>airlock vault import FILE</code>, or use Open file….</p>}
      {records.length > 0 && groups.length === 0 && <p className="muted" data-testid="vault-none">No record matches the filter.</p>}
      <p className="hint">↑/↓ choose · Enter or double-click opens · / filters · Esc clears the filter · titles are sanitized text · a record's empty streams are named in its row</p>
    </main>
  );
}
