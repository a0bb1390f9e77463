import { Redactor, windowRedactions, type Redaction, type RedactionPolicy, type StreamRedactionReport } from '../../shared/redact';

/** A text run through the redaction stage whole. */
export interface RedactedText {
  readonly text: string;
  readonly report: StreamRedactionReport;
  readonly redactions: readonly Redaction[];
}

/** Redacts a whole text (a stored record's, an extract's); offsets in the result are UTF-8 bytes. */
export function redactText(text: string, policy: RedactionPolicy): RedactedText {
  const r = new Redactor({ policy });
  const out = Buffer.concat([r.write(Buffer.from(text, 'utf8')), r.end()]);
  return { text: out.toString('utf8'), report: r.report(), redactions: windowRedactions(r.redactions().list, out.length, null) };
}
