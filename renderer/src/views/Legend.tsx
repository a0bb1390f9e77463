import { CLASS_HINTS, CLASS_LABELS, clsCss } from '../lib/spans';

/** Colour key for span classes (hex bytes, caret cells, chips and the minimap share it). */
export function Legend({ counts }: { counts?: readonly number[] }) {
  return (
    <ul className="legend" aria-label="Span class colours">
      {CLASS_LABELS.map((label, cls) => (
        <li key={cls} className={clsCss(cls)} title={CLASS_HINTS[cls]} data-empty={counts && counts[cls] === 0 ? 'true' : undefined}>
          <span className="swatch" aria-hidden="true" />
          {label}
        </li>
      ))}
      <li className="k-text" title="Kept text"><span className="swatch" aria-hidden="true" />text</li>
    </ul>
  );
}
