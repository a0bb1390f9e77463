import { useEffect, type KeyboardEvent } from 'react';
import type { ScreenFindingView } from '../../../shared/bridge/types';
import { cancelScreen, loadScreen, selectRange } from '../actions';
import { TerminalSizeForm } from '../components/TerminalSizeForm';
import { hexOffset, humanSize } from '../lib/spans';
import { useArtifact, useScreen } from '../stores';

const KIND_LABEL: Record<ScreenFindingView['kind'], string> = {
  overwritten: 'overwritten',
  erased: 'erased',
  concealed: 'concealed',
  same_colour: 'same colour',
};

const KIND_HELP: Record<ScreenFindingView['kind'], string> = {
  overwritten: 'printed over by later text (CR or cursor moves)',
  erased: 'removed by an erasing control',
  concealed: 'still on screen, drawn invisible (SGR 8)',
  same_colour: 'still on screen, foreground = background colour',
};

/** "1 space", "2 spaces and a tab": how a hidden text that is only blanks is named; null when it holds more. */
export function blankName(text: string): string | null {
  if (text.length === 0 || /[^ \t]/.test(text)) return null;
  const spaces = [...text].filter((c) => c === ' ').length;
  const tabs = text.length - spaces;
  const part = (n: number, one: string, many: string) => (n === 0 ? null : `${n} ${n === 1 ? one : many}`);
  return [part(spaces, 'space', 'spaces'), part(tabs, 'tab', 'tabs')].filter(Boolean).join(' and ');
}

/**
 * The hidden text: as is, on a tint that shows where leading and trailing blanks are; a text that
 * is only blanks is drawn as visible marks (· for a space, → for a tab) and named, never as an empty row.
 */
function HiddenText({ text }: { text: string }) {
  const blank = blankName(text);
  if (blank !== null) {
    return (
      <span className="ft mono blank" data-testid="screen-blank">
        <span className="ws" aria-hidden="true">{text.replace(/ /g, '·').replace(/\t/g, '→')}</span> <span className="muted small">({blank})</span>
      </span>
    );
  }
  return <span className="ft mono"><span className="ft-text">{text}</span></span>;
}

/**
 * What a terminal showed at the end against what the bytes printed (main's screen engine, as
 * `airlock screen`): counts, one row per hidden range (its bytes selected on Enter or click, what
 * hid it one more click away), and the last screen as a person saw it. Text is inert (main made
 * it so) and shows as plain text.
 */
export function ScreenPanel() {
  const ref = useArtifact((a) => a.artifact?.ref ?? null);
  const { cols, rows, phase, view, error, progress } = useScreen();
  useEffect(() => {
    if (ref && phase === 'idle') void loadScreen(cols, rows);
  }, [ref, phase, cols, rows]);
  // Up and Down move between findings (each is a button).
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const items = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button.finding')];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const next = items[Math.max(0, Math.min(items.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };
  const c = view?.counts;
  return (
    <section className="screen-panel" data-testid="screen-panel" aria-label="Screen reconstruction">
      <TerminalSizeForm idPrefix="screen" initial={{ cols, rows }} onRun={(c, r) => void loadScreen(c, r)} button="Reconstruct" />
      {phase === 'loading' && (
        <div className="screen-progress" role="status" data-testid="screen-progress">
          <span className="muted">
            Running the bytes through the emulator…
            {progress && progress.totalBytes > 0 && <> {Math.floor((100 * progress.bytesDone) / progress.totalBytes)}% of {humanSize(progress.totalBytes)}</>}
          </span>
          {progress && <progress max={Math.max(1, progress.totalBytes)} value={progress.bytesDone} aria-label="Reconstruction progress" />}
          <button type="button" onClick={() => void cancelScreen()}>Cancel</button>
        </div>
      )}
      {phase === 'error' && <p className="error" role="alert">{error}</p>}
      {view && c && phase === 'ready' && (
        <>
          <div className="report-totals screen-totals">
            <div><strong data-testid="screen-hidden">{c.overwritten + c.erased + c.concealed + c.same_colour}</strong><span>hidden ranges</span></div>
            <div><strong>{c.printed}</strong><span>characters printed</span></div>
            <div><strong>{view.cols}×{view.rows}</strong><span>{view.emulator}</span></div>
          </div>
          <p className="screen-counts small">
            <span className="sk k-overwritten">{c.overwritten} overwritten</span> · <span className="sk k-erased">{c.erased} erased</span> ·{' '}
            <span className="sk k-concealed">{c.concealed} concealed</span> · <span className="sk k-same_colour">{c.same_colour} same colour</span>
            {c.scrolledOut > 0 && <> · {c.scrolledOut} scrolled out of the scrollback (not hidden)</>}
          </p>
          {!view.layoutVerified && <p className="error" role="alert">The emulator laid the followed copy out differently: findings may be wrong.</p>}
          {!view.causesComplete && <p className="notice small">The input erases the screen too often to bracket every erase: some erased text is listed without its cause.</p>}
          {view.alternateScreen && <p className="notice small">The alternate screen was still active at the end: the normal screen is behind it.</p>}
          {view.unfollowedBytes > 0 && <p className="notice small">{humanSize(view.unfollowedBytes)} stayed undecided by the sanitizer too long (an open sequence or a disagreement between readings) and went through unfollowed: text printed there is not listed.</p>}
          <ul className="finding-list" aria-label="Hidden text" onKeyDown={onKeyDown}>
            {view.findings.map((f) => (
              <li key={`${f.offset}:${f.kind}`} data-testid="screen-finding">
                <button type="button" className={`finding k-${f.kind}`} title={KIND_HELP[f.kind]}
                  aria-label={`${KIND_LABEL[f.kind]} at 0x${hexOffset(f.offset)}, ${f.length} bytes: ${blankName(f.text) ?? f.text}`}
                  onClick={() => selectRange(f.offset, f.offset + f.length)}>
                  <span className="fhead">
                    <span className="fk">{KIND_LABEL[f.kind]}</span>
                    <span className="mono fo">0x{hexOffset(f.offset)} +{f.length}</span>
                    {f.line !== null && <span className="fl" title={`line ${f.line}, column ${f.column}`}>L{f.line}:{f.column}</span>}
                  </span>
                  <HiddenText text={f.text} />
                </button>
                {f.by !== null && (
                  <button type="button" className="link mono by" aria-label={`What hid it: 0x${hexOffset(f.by)}`} onClick={() => selectRange(f.by!, f.by! + 1)}>by 0x{hexOffset(f.by)}</button>
                )}
              </li>
            ))}
            {view.findings.length === 0 && <li className="muted">Nothing printed was hidden: the last screen shows every character the bytes printed (or scrolled past).</li>}
            {view.truncated && <li className="muted">More findings than listed; airlock screen --json lists them all.</li>}
          </ul>
          <h3 className="screen-head">Last screen, as seen</h3>
          {view.withheldCells > 0 && <p className="small muted" data-testid="screen-withheld">{view.withheldCells} cells show ░: the terminal drew them from bytes the sanitizer removed or withheld, which only the raw bytes show.</p>}
          {/* As tall as its rows (they all show without scrolling the panel); wider than the panel, it scrolls sideways. */}
          <div className="screen-last-box">
            <pre className="screen-last mono" data-testid="screen-last" aria-label="Last screen" style={{ width: `${view.cols}ch`, height: `calc(${view.screen.length} * var(--screen-lh) + 10px)` }}>{view.screen.join('\n')}</pre>
          </div>
        </>
      )}
    </section>
  );
}
