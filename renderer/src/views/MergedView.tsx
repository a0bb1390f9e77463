// stdout and stderr merged in the collector's sequence order (the chunk log), each chunk labelled
// with its stream and sequence number. Nothing here claims an order finer than what the collector
// observed: bytes inside one chunk are one read; chunks are ordered only by their seq numbers.
import { useEffect, useState } from 'react';
import type { ChunkLogView, TextLine, TextPiece } from '../../../shared/bridge/types';
import { bridge, errorText } from '../bridge';
import { openArtifact, selectRange } from '../actions';
import { hexOffset } from '../lib/spans';
import { useArtifact } from '../stores';

interface Loaded {
  log: ChunkLogView;
  texts: Map<number, string>;
}

function pieceStart(p: TextPiece): number {
  return p.t === 'chip' ? p.span.offset : p.t === 'secret' ? p.secret.offset : p.raw;
}

/** A chunk's sanitized text; line breaks drawn as ↵ so an empty-looking chunk is still visible. */
function ChunkText({ text, textLength }: { text: string | undefined; textLength: number }) {
  if (text === undefined) return <span className="muted">{textLength} text bytes</span>;
  if (text === '') return <span className="muted small">no text (only removed spans)</span>;
  const parts = text.split('\n');
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {p}
          {i < parts.length - 1 && <><span className="syn" aria-label="line break">↵</span>{i < parts.length - 2 || parts[parts.length - 1] !== '' ? <br /> : null}</>}
        </span>
      ))}
    </>
  );
}

export function MergedView() {
  const record = useArtifact((a) => a.record);
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!record) return;
    let live = true;
    (async () => {
      const log = await bridge().getChunkLog(record.id);
      const texts = new Map<number, string>();
      if (log.rows.length <= 2000) {
        const byStream = new Map<string, TextLine[]>();
        for (const a of record.artifacts) {
          if (!live) return; // closed: stop polling for an index nobody will show
          try {
            // Each stream's text comes from its own index: build it if this window has not yet.
            let st = await bridge().startIndex(a.ref);
            for (let i = 0; live && st.state === 'running' && i < 400; i++) {
              await new Promise((r) => setTimeout(r, 150));
              st = await bridge().getIndexStatus(a.ref);
            }
            byStream.set(a.stream, (await bridge().getTextLines(a.ref, 0, 2000)).lines as TextLine[]);
          } catch {
            // rows still show their stream, seq and byte range
          }
        }
        log.rows.forEach((row, i) => {
          const lines = byStream.get(row.stream) ?? [];
          let text = '';
          for (const l of lines) {
            if (l.rawEnd <= row.offset || l.rawStart >= row.offset + row.length) continue;
            for (const p of l.pieces) {
              const at = pieceStart(p);
              if (at < row.offset || at >= row.offset + row.length) continue;
              if (p.t === 'text') text += p.text;
              else if (p.t === 'synthetic') text += '\n';
            }
            if (l.rawEnd - 1 >= row.offset && l.rawEnd - 1 < row.offset + row.length && !l.pieces.some((p) => p.t === 'synthetic')) text += '\n';
          }
          texts.set(i, text);
        });
      }
      if (live) setData({ log, texts });
    })().catch((e) => live && setError(errorText(e)));
    return () => {
      live = false;
    };
  }, [record]);
  if (!record) return null;
  const open = (stream: string, offset: number, length: number) => {
    const a = record.artifacts.find((x) => x.stream === stream);
    if (a) void openArtifact(record, a).then(() => selectRange(offset, offset + Math.max(1, length)));
  };
  return (
    <section className="merged-view" data-testid="merged-view" aria-label="Merged streams in collector order">
      <div className="pane-head">
        <span>Merged streams</span>
        <span className="muted small">ordered by the collector's sequence numbers only — the order of reads it observed, not of writes</span>
      </div>
      {error && <p className="error" role="alert">{error}</p>}
      {data && data.log.coalesced && <p className="notice small">The chunk log coalesced some reads: a row's seq range covers several reads of one stream.</p>}
      {data && !data.log.complete && <p className="notice small">The chunk log is incomplete: rows after {data.log.rows.length} were not recorded.</p>}
      {data && data.log.rows.length === 0 && <p className="muted">No chunk log for this record (only captures have one).</p>}
      {data && data.log.rows.length > 0 && (
        <table className="merged" aria-label="Chunks in collector order">
          <thead><tr><th scope="col">seq</th><th scope="col">stream</th><th scope="col">t (ms)</th><th scope="col">raw bytes</th><th scope="col">sanitized text</th></tr></thead>
          <tbody>
            {data.log.rows.map((row, i) => (
              <tr key={i} data-testid="merged-row" data-seq={row.seq} className={`s-${row.stream}`}>
                <td className="mono">{row.seq === row.seqEnd ? row.seq : `${row.seq}–${row.seqEnd}`}</td>
                <td><span className={`stream s-${row.stream}`}>{row.stream}</span></td>
                <td className="mono num">{row.tMs}</td>
                <td><button type="button" className="link mono" onClick={() => open(row.stream, row.offset, row.length)}>0x{hexOffset(row.offset)} +{row.length}</button></td>
                <td className="merged-text"><ChunkText text={data.texts.get(i)} textLength={row.textLength} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
