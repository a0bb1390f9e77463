import { useRef, useState, type FormEvent } from 'react';
import { closeArtifact, copySelection, exportHexDump, moveCursor, openArtifact, selectRange } from '../actions';
import { markJump } from '../lib/timing';
import { parseGoto } from '../lib/goto';
import { MenuButton } from '../components/MenuButton';
import { ThemeButton } from '../components/ThemeButton';
import { counted, grouped, humanSize } from '../lib/spans';
import { useArtifact, useGrants, useSelection, useView, type MainTab } from '../stores';

export function GotoBox() {
  const size = useArtifact((a) => a.artifact?.size ?? 0);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseGoto(value, useSelection.getState().cursor, size);
    if (!r.ok) {
      setError(r.error);
      return;
    }
    setError(null);
    markJump(r.offset);
    if (r.end !== null) selectRange(r.offset, r.end);
    else moveCursor(r.offset);
    document.querySelector<HTMLElement>('[data-testid=hex-grid]')?.focus();
  };
  return (
    <form className="goto" onSubmit={submit} role="search" aria-label="Go to offset">
      <label htmlFor="goto-input" className="sr-only">Go to offset or range</label>
      <input id="goto-input" data-testid="goto-input" ref={input} value={value} spellCheck={false} autoComplete="off"
        placeholder="Go to: 0x1f · 31 · +16 · end · 0x10-0x2f" aria-invalid={error ? true : undefined} aria-describedby={error ? 'goto-error' : undefined}
        onChange={(e) => setValue(e.target.value)} />
      <button type="submit">Go</button>
      {error && <span id="goto-error" className="error small" role="alert" data-testid="goto-error">{error}</span>}
    </form>
  );
}

/** Export hex dump: of the selection or of the whole artifact (what the grant covers); the menu says which. */
function ExportMenu() {
  const grant = useGrants((g) => g.grant);
  const size = useArtifact((a) => a.artifact?.size ?? 0);
  const cursor = useSelection((s) => s.cursor);
  const range = useSelection((s) => s.range);
  const [start, end] = range ?? [cursor, cursor + 1];
  const whole = grant?.range ? `Granted range — ${grouped(grant.range[1] - grant.range[0])} bytes` : `Whole artifact — ${grouped(size)} bytes`;
  return (
    <MenuButton label="Export hex dump" disabled={!grant} title={grant ? 'Main writes the dump to a file you choose; the audit log records which bytes' : 'Needs raw access'} items={[
      { name: 'Hex dump of the selection', label: <>Selection — 0x{start.toString(16)}–0x{(end - 1).toString(16)}, {counted(end - start, 'byte')}</>, onChoose: () => void exportHexDump('selection') },
      { name: grant?.range ? 'Hex dump of the granted range' : 'Hex dump of the whole artifact', label: whole, onChoose: () => void exportHexDump('artifact') },
    ]} />
  );
}

export function Toolbar() {
  const record = useArtifact((a) => a.record);
  const artifact = useArtifact((a) => a.artifact);
  const mainTab = useView((v) => v.mainTab);
  const granted = useGrants((g) => g.grant !== null);
  if (!record || !artifact) return null;
  const tab = (t: MainTab, label: string) => (
    <button type="button" role="tab" aria-selected={mainTab === t} className={mainTab === t ? 'on' : ''} onClick={() => useView.setState({ mainTab: t })}>{label}</button>
  );
  return (
    <header className="toolbar">
      <button type="button" className="back" onClick={() => void closeArtifact()} aria-label="Back to the vault">‹ Vault</button>
      <div className="ident">
        <span className="title" title={record.title}>{record.title}</span>
        <span className="muted small mono" title={artifact.sha256}>
          sha256 {artifact.sha256.slice(0, 16)}… · {humanSize(artifact.size)}
          {record.rebuilt && <span className="tag warn" title="Rebuilt from decoded text (asciicast), not byte-exact">rebuilt, not byte-exact</span>}
          {!artifact.rawAvailable && <span className="tag" title="Retention ended the raw bytes; text and report remain">raw pruned</span>}
        </span>
      </div>
      <div className="streams" role="tablist" aria-label="Streams">
        {record.artifacts.map((a) => (
          <button key={a.ref} type="button" role="tab" aria-selected={a.ref === artifact.ref && mainTab !== 'merged'} data-testid="stream-tab" data-stream={a.stream}
            className={`stream s-${a.stream}${a.ref === artifact.ref && mainTab !== 'merged' ? ' on' : ''}`}
            onClick={() => (a.ref === artifact.ref ? useView.setState({ mainTab: 'bytes' }) : void openArtifact(record, a))}>
            {a.stream}
          </button>
        ))}
        {record.artifacts.length > 1 && <button type="button" role="tab" aria-selected={mainTab === 'merged'} className={mainTab === 'merged' ? 'on' : ''} data-testid="merged-tab" onClick={() => useView.setState({ mainTab: 'merged' })}>Merged</button>}
      </div>
      <div className="tabs" role="tablist" aria-label="View">
        {tab('bytes', 'Bytes + text')}
        {tab('compare', 'Compare raw / clean')}
      </div>
      <GotoBox />
      <div className="toolbar-actions">
      <div className="copy-group" role="group" aria-label="Copy selection">
        <span className="muted small">Copy</span>
        <button type="button" onClick={() => void copySelection('hex')} disabled={!granted} title="Ctrl+C in the hex view">Hex</button>
        <button type="button" onClick={() => void copySelection('caret')} disabled={!granted}>Caret</button>
        <button type="button" onClick={() => void copySelection('c-array')} disabled={!granted}>C array</button>
        <button type="button" onClick={() => void copySelection('text')} title="The selection's sanitized text (Ctrl+C in the text view)">Text</button>
        <button type="button" onClick={() => void copySelection('offset')}>Offset</button>
      </div>
      <ExportMenu />
      <ThemeButton />
      </div>
    </header>
  );
}
