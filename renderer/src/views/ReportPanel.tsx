// The removal report: counts by class and by meaning; each row walks its occurrences.
import { DANGER_LABELS, dangerTier, rankMeanings } from '../../../shared/parser/danger';
import { SPAN_CLASS_NAMES } from '../../../shared/parser/span-class';
import { exportReport, walkSpan } from '../actions';
import type { RemovalReport } from '../../../shared/bridge/types';
import { classLabel, clsCss, hexOffset, humanSize } from '../lib/spans';
import { useArtifact } from '../stores';

function Walk({ label, filter }: { label: string; filter: { cls?: number; meaning?: string } }) {
  return (
    <span className="walk">
      <button type="button" className="icon" aria-label={`Previous ${label}`} title="Previous occurrence" onClick={() => void walkSpan(filter, -1)}>‹</button>
      <button type="button" className="icon" aria-label={`Next ${label}`} title="Next occurrence" onClick={() => void walkSpan(filter, 1)}>›</button>
    </span>
  );
}

/** Where the terminal readings disagreed: stretches, bytes, and text withheld to the end. */
function OneReading({ report }: { report: RemovalReport }) {
  const amb = report.ambiguous ?? { count: 0, bytes: 0 };
  const withheld = report.classes.withheld ?? { count: 0, bytes: 0 };
  if (amb.count === 0 && !report.withheld_to_end && withheld.count === 0) return null;
  return (
    <div className="one-reading" data-testid="report-one-reading" role="note" aria-label="Where the terminal readings disagree">
      <span className="tag warn" data-testid="report-ambiguous">
        {amb.count.toLocaleString('en-US')} ambiguous stretch{amb.count === 1 ? '' : 'es'} · {amb.bytes.toLocaleString('en-US')} bytes
      </span>
      {withheld.count > 0 && <span className="tag"> {withheld.bytes.toLocaleString('en-US')} bytes of text one reading shows, withheld</span>}
      {report.withheld_to_end && (
        <span className="tag danger" data-testid="report-withheld-to-end">
          withheld to end of input{report.withheld_from !== null ? ` from 0x${hexOffset(report.withheld_from)} (${report.withheld_from.toLocaleString('en-US')})` : ''}
        </span>
      )}
      <span className="small muted"> Not every terminal reading shows this: only text every reading shows was kept.</span>
    </div>
  );
}

export function ReportPanel() {
  const report = useArtifact((a) => a.report);
  const status = useArtifact((a) => a.status);
  if (!report) {
    return (
      <section className="report-panel" data-testid="report-panel" aria-label="Removal report">
        <p className="muted">{status?.state === 'running' ? `Indexing… ${Math.floor((100 * status.bytesDone) / Math.max(1, status.totalBytes))}%` : 'Loading report…'}</p>
      </section>
    );
  }
  // Most dangerous first (shared/parser/danger.ts): a clipboard write before a thousand colour codes.
  const meanings = rankMeanings(report.meanings);
  return (
    <section className="report-panel" data-testid="report-panel" aria-label="Removal report">
      <div className="report-totals">
        <div><strong>{report.removed_spans.toLocaleString('en-US')}</strong><span>spans removed</span></div>
        <div><strong>{humanSize(report.removed_bytes)}</strong><span>removed or replaced</span></div>
        <div><strong>{humanSize(report.kept_bytes)}</strong><span>kept as text</span></div>
      </div>
      <p className="small muted">
        {report.unterminated > 0 && <span className="tag warn">{report.unterminated} unterminated</span>}
        {report.malformed > 0 && <span className="tag warn">{report.malformed} malformed</span>}
        {report.oversized > 0 && <span className="tag warn">{report.oversized} oversized</span>}
        {report.eight_bit > 0 && <span className="tag warn">{report.eight_bit} 8-bit</span>}
        {report.truncated && <span className="tag warn">truncated</span>} CR: {report.cr_mode}
      </p>
      <OneReading report={report} />
      {status?.secrets && status.secrets.count > 0 && (
        <p className="secret-overlap note" data-testid="report-secrets" role="note">
          <span className="secret-icon" aria-hidden="true" />
          <span>
            {status.secrets.count.toLocaleString('en-US')} suspected secret{status.secrets.count === 1 ? '' : 's'} redacted in the text
            ({Object.entries(status.secrets.rules).map(([rule, n]) => `${rule}${n > 1 ? ` ×${n}` : ''}`).join(', ')}); {status.secrets.count === 1 ? 'its value shows' : 'their values show'} only under raw access.
          </span>
        </p>
      )}
      <table className="report-table" aria-label="Removed spans by class">
        <thead><tr><th scope="col">Class</th><th scope="col" className="num">Count</th><th scope="col" className="num">Bytes</th><th scope="col"><span className="sr-only">Walk</span></th></tr></thead>
        <tbody>
          {SPAN_CLASS_NAMES.map((name, cls) => {
            const c = report.classes[name];
            if (!c || c.count === 0) return null;
            return (
              <tr key={name} data-testid="report-class" data-cls={name}>
                <td><span className={`dot ${clsCss(cls)}`} aria-hidden="true" />{classLabel(cls)}</td>
                <td className="num mono">{c.count.toLocaleString('en-US')}</td>
                <td className="num mono">{c.bytes.toLocaleString('en-US')}</td>
                <td><Walk label={classLabel(cls)} filter={{ cls }} /></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <table className="report-table meanings" aria-label="Removed spans by meaning">
        <thead><tr><th scope="col">Meaning, most dangerous first</th><th scope="col" className="num">Count</th><th scope="col"><span className="sr-only">Walk</span></th></tr></thead>
        <tbody>
          {meanings.map(({ key, count: n, category }) => {
            const sep = key.indexOf(': ');
            const clsName = key.slice(0, sep);
            const meaning = key.slice(sep + 2);
            const cls = (SPAN_CLASS_NAMES as readonly string[]).indexOf(clsName);
            return (
              <tr key={key} data-testid="report-meaning" data-key={key} data-category={category} className={`tier-${dangerTier(category)}`} title={DANGER_LABELS[category]}>
                <td><span className={`dot ${clsCss(cls)}`} aria-hidden="true" /><span className="muted">{classLabel(cls)}</span> {meaning}</td>
                <td className="num mono">{n.toLocaleString('en-US')}</td>
                <td><Walk label={`${classLabel(cls)} ${meaning}`} filter={{ cls, meaning }} /></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="row-actions">
        <button type="button" onClick={() => void exportReport('json')}>Export report JSON</button>
        <button type="button" onClick={() => void exportReport('md')}>Export report Markdown</button>
      </div>
    </section>
  );
}
