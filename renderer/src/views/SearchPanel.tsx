// Search sanitized text (no grant) or raw bytes as hex with ?? wildcards or as text (grant).
import type { FormEvent } from 'react';
import { gotoHit, runSearch, setSearchMode, stopSearch } from '../actions';
import { hexOffset } from '../lib/spans';
import { useGrants, useSearch, type SearchMode } from '../stores';

const MODES: Array<[SearchMode, string]> = [['text', 'Sanitized text'], ['raw-text', 'Raw bytes (text)'], ['raw-hex', 'Raw bytes (hex)']];

export function SearchPanel() {
  const s = useSearch();
  const granted = useGrants((g) => g.grant !== null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void runSearch();
  };
  const current = s.index >= 0 ? s.index + 1 : 0;
  return (
    <section className="search-panel" data-testid="search-panel" aria-label="Search">
      <form onSubmit={submit} className="search-form" role="search">
        <label htmlFor="search-query" className="sr-only">Search</label>
        <input
          id="search-query" data-testid="search-input" type="search" value={s.query} spellCheck={false} autoComplete="off"
          placeholder={s.mode === 'raw-hex' ? '1b 5d ?? 3b' : 'find…'}
          onChange={(e) => useSearch.setState({ query: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && s.ran && s.ran.query === s.query && s.ran.mode === s.mode) {
              e.preventDefault();
              gotoHit(e.shiftKey ? -1 : 1);
            }
          }}
        />
        <button type="submit" className="primary" disabled={s.busy}>{s.busy ? 'Searching…' : 'Search'}</button>
        {s.busy && <button type="button" onClick={() => void stopSearch()}>Stop</button>}
      </form>
      <fieldset className="modes">
        <legend className="sr-only">Search in</legend>
        {MODES.map(([mode, label]) => (
          <label key={mode} className={mode !== 'text' && !granted ? 'needs-grant' : ''}>
            <input type="radio" name="search-mode" checked={s.mode === mode} onChange={() => setSearchMode(mode)} /> {label}
            {mode !== 'text' && !granted && <span className="tag">needs raw access</span>}
          </label>
        ))}
        <label><input type="checkbox" checked={s.caseSensitive} onChange={(e) => useSearch.setState({ caseSensitive: e.target.checked })} /> Match case</label>
      </fieldset>
      {s.error && <p className="error" role="alert">{s.error}</p>}
      {s.ran && (
        <div className="hits" aria-live="polite">
          <span data-testid="search-count">
            {s.total === 0 ? 'No hits' : <><strong>{current.toLocaleString('en-US')}</strong> of <strong>{s.total.toLocaleString('en-US')}</strong> hits{s.hits.length < s.total ? ` (first ${s.hits.length.toLocaleString('en-US')} listed)` : ''}</>}
          </span>
          <span className="muted small"> in {s.ran.mode === 'text' ? 'sanitized text' : 'raw bytes'} · {s.elapsedMs} ms</span>
          <div className="row-actions">
            <button type="button" aria-label="Previous hit" onClick={() => gotoHit(-1)} disabled={s.hits.length === 0}>‹ Prev</button>
            <button type="button" aria-label="Next hit" onClick={() => gotoHit(1)} disabled={s.hits.length === 0}>Next ›</button>
          </div>
          <ol className="hit-list">
            {s.hits.slice(Math.max(0, s.index - 5), Math.max(0, s.index - 5) + 40).map((h, i) => {
              const n = Math.max(0, s.index - 5) + i;
              return (
                <li key={n} className={n === s.index ? 'current' : ''}>
                  <button type="button" className="link mono" onClick={() => { useSearch.setState({ index: n - 1 }); gotoHit(1); }}>#{n + 1} 0x{hexOffset(h)}</button>
                </li>
              );
            })}
          </ol>
        </div>
      )}
      <p className="hint">Enter: search, then next · Shift+Enter: previous · F3 / Shift+F3 anywhere</p>
    </section>
  );
}
