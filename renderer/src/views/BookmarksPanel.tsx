import { useState, type FormEvent } from 'react';
import { addBookmark, deleteBookmark, exportBookmarks, selectRange } from '../actions';
import { hexOffset } from '../lib/spans';
import { selectedRange, useBookmarks, useSelection } from '../stores';

/** Bookmarks with notes, stored per artifact in the vault by main. Notes show as plain text. */
export function BookmarksPanel() {
  const { list, error } = useBookmarks();
  const sel = useSelection();
  const [note, setNote] = useState('');
  const [start, end] = selectedRange(sel);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void addBookmark(note).then(() => setNote(''));
  };
  return (
    <section className="bookmarks-panel" data-testid="bookmarks-panel" aria-label="Bookmarks">
      <form onSubmit={submit} className="bookmark-form">
        <label htmlFor="bookmark-note">Note for 0x{hexOffset(start)}{end - start > 1 ? ` (+${end - start} bytes)` : ''}</label>
        <div className="inline">
          <input id="bookmark-note" data-testid="bookmark-note" value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} placeholder="what is here" />
          <button type="submit" className="primary">Add bookmark</button>
        </div>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      <ul className="bookmark-list">
        {list.map((b) => (
          <li key={b.id} data-testid="bookmark">
            <button type="button" className="link mono" onClick={() => selectRange(b.offset, b.offset + Math.max(1, b.length))}>0x{hexOffset(b.offset)}{b.length > 1 ? ` +${b.length}` : ''}</button>
            <span className="note">{b.note || <span className="muted">no note</span>}</span>
            <button type="button" className="icon" aria-label={`Delete bookmark at 0x${hexOffset(b.offset)}`} onClick={() => void deleteBookmark(b.id)}>×</button>
          </li>
        ))}
        {list.length === 0 && <li className="muted">No bookmarks. Select bytes, type a note, Add bookmark (Ctrl+B).</li>}
      </ul>
      <div className="row-actions"><button type="button" onClick={() => void exportBookmarks()} disabled={list.length === 0}>Export bookmarks Markdown</button></div>
    </section>
  );
}
