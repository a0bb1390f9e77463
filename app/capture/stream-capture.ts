import { Sanitizer, type RemovalReport, type SanitizerOptions } from '../../shared/sanitize';
import { DEFAULT_POLICY, Redactor, windowRedactions, type Redaction, type RedactionPolicy, type StreamRedactionReport } from '../../shared/redact';
import type { RawCommit, RawWriter } from '../vault';
import type { StreamName } from './chunk-log';
import { TextWindow, type WindowedText } from './text-window';

/** Everything one stream produced, once it is finished and its raw bytes are committed. */
export interface StreamResult {
  readonly name: StreamName;
  /** The committed raw bytes: digest, size, `restricted:sha256:` reference. */
  readonly raw: RawCommit;
  /** The removal report; `sha256` is the raw digest, `truncated` says the stream was cut. */
  readonly report: RemovalReport;
  /** The sanitized text the agent gets, bounded by --max-text. */
  readonly text: WindowedText;
  /** false when capture stopped reading before the stream's end (EOF) was seen. */
  readonly complete: boolean;
  /**
   * Text that only the end of the stream produced (a held CR, U+FFFD for a cut character, the
   * last emulated line): its text offset and length, so the chunk log can cover it too.
   */
  readonly endText: { readonly offset: number; readonly length: number };
  /** What the redaction stage did: counts for the whole stream, markers listed as `text` shows them. */
  readonly redaction: StreamRedaction;
}

/** The redaction stage's result for one stream. */
export interface StreamRedaction extends StreamRedactionReport {
  /** Each marker in `text` (at: its byte offset there; offset/length: the value in the sanitized text). */
  readonly redactions: readonly Redaction[];
  /** false when more redactions happened than are listed (the list is bounded; counts are not). */
  readonly listed_all: boolean;
}

/** How the stage runs on a stream: the policy, and whether it replaces (`--redact off` only counts). */
export interface StreamRedactionOptions {
  readonly policy: RedactionPolicy;
  readonly replace: boolean;
}

/**
 * The per-stream pipeline: every chunk goes, as it arrives, to the vault's RawWriter (hashed and
 * written, 0600; {@link store}) and then, in the same order, through this stream's own Sanitizer
 * into a bounded {@link TextWindow} ({@link sanitize}; runCapture lets this run a little behind,
 * at most a bounded queue of chunks). Nothing here holds more than --max-text of text plus the
 * writer's staging buffers, whatever the child writes. stdout and stderr each get one; where a
 * terminal would read one stream's text inside the other's open sequence, SharedTerminal has it
 * withheld.
 */
export class StreamCapture {
  private readonly sanitizer: Sanitizer;
  private readonly window: TextWindow;
  private readonly redactor: Redactor;
  /**
   * Every piece of text the redaction stage settles goes to the window and to {@link onSettled}.
   * Both copy what they keep at once, so the redactor's views of the text are safe here.
   */
  private readonly toWindow = (piece: Uint8Array): void => {
    if (piece.length === 0) return;
    this.window.push(piece);
    this.outBytes += piece.length;
    this.onSettled?.(piece);
  };
  private rawBytes = 0;
  private textBytes = 0;
  private outBytes = 0;
  private ended: { readonly offset: number; readonly length: number } | null = null;
  /**
   * Receives the text the redaction stage settles, in order, as views valid during the call (a
   * live reader: the terminal, the running record). What it gets is exactly what the stored text
   * is made of, before the --max-text window.
   */
  onSettled: ((piece: Uint8Array) => void) | null = null;

  constructor(
    readonly name: StreamName,
    private readonly raw: RawWriter,
    sanitizer: Pick<SanitizerOptions, 'cr' | 'limits'>,
    maxText: number,
    redaction: StreamRedactionOptions = { policy: DEFAULT_POLICY, replace: true },
  ) {
    // No digest here: the RawWriter already hashes the same bytes, and its digest goes in the report.
    // The output buffer is reused: the TextWindow copies what it keeps before the next write.
    this.sanitizer = new Sanitizer({ cr: sanitizer.cr, limits: sanitizer.limits, reuseOutputBuffer: true });
    this.window = new TextWindow(maxText);
    // After the sanitizer, before the window: the whole stream is scanned (counts cover it all),
    // and what the window keeps, the record stores and a live reader sees is already redacted.
    this.redactor = new Redactor({ policy: redaction.policy, replace: redaction.replace });
  }

  /** Raw bytes accepted so far (the offset of the next chunk in this stream). */
  get bytes(): number {
    return this.rawBytes;
  }

  /** Sanitized bytes emitted so far (the text offset of the next chunk's text; before redaction). */
  get textOffset(): number {
    return this.textBytes;
  }

  /** Text the redaction stage has settled so far (the stream's output, before the --max-text window). */
  get settledBytes(): number {
    return this.outBytes;
  }

  /**
   * What of the unfinished line the redaction stage holds may be shown now (a copy; see
   * Redactor.preview): it is where the settled text will go on.
   */
  preview(): Uint8Array {
    return this.redactor.preview();
  }

  /**
   * Stores one chunk's raw bytes (the vault writer copies them). Returns a promise when the
   * writer wants the caller to wait (backpressure: pause the pipe until it settles). The same
   * bytes go to {@link sanitize} next, in the same order.
   */
  store(chunk: Uint8Array): Promise<void> | undefined {
    const wait = this.raw.write(chunk) ?? undefined;
    this.rawBytes += chunk.length;
    return wait;
  }

  /**
   * Takes one chunk: {@link store} then {@link sanitize}. Returns the number of text bytes it
   * produced, and a promise when the vault writer wants the caller to wait.
   */
  push(chunk: Uint8Array): { textLength: number; wait: Promise<void> | undefined } {
    const wait = this.store(chunk);
    return { textLength: this.sanitize(chunk), wait };
  }

  /** Its parser is at rest: the other stream's bytes here are read as from a fresh start (see SharedTerminal). */
  get atRest(): boolean {
    return this.sanitizer.parserAtRest;
  }

  /** Its sanitizer's sequence spans so far (see SharedTerminal). */
  get sequenceSpans(): number {
    return this.sanitizer.sequenceSpans;
  }

  /**
   * Sanitizes the next stored chunk into the text window; returns the text bytes it produced.
   * `withhold`: the text it prints is withheld and counted (the other stream has a sequence open).
   */
  sanitize(chunk: Uint8Array, withhold = false): number {
    this.sanitizer.withholdText = withhold;
    const text = this.sanitizer.write(chunk);
    this.sanitizer.withholdText = false;
    this.redactor.writeTo(text, this.toWindow);
    this.textBytes += text.length;
    return text.length;
  }

  /**
   * Ends the text: flushes the sanitizer (an unterminated string is counted, never emitted) and
   * the redaction stage. Returns the text only the end made (a held CR, U+FFFD for a cut
   * character, the last emulated line), so the chunk log can cover it. Called once, before
   * {@link finish} (which calls it when nobody did).
   */
  endText(): { readonly offset: number; readonly length: number } {
    if (this.ended !== null) return this.ended;
    const tail = this.sanitizer.end();
    this.ended = { offset: this.textBytes, length: tail.length };
    this.redactor.writeTo(tail, this.toWindow);
    this.toWindow(this.redactor.end());
    this.textBytes += tail.length;
    return this.ended;
  }

  /** Commits the raw bytes and builds the result (ending the text first). `complete` false marks the report truncated. */
  async finish(complete: boolean): Promise<StreamResult> {
    const endText = this.endText();
    const raw = await this.raw.commit();
    const report = { ...this.sanitizer.getReport(!complete), sha256: raw.sha256 };
    const text = this.window.finish();
    const listed = this.redactor.redactions();
    const redaction: StreamRedaction = {
      ...this.redactor.report(),
      redactions: windowRedactions(listed.list, text.totalBytes, text.truncation),
      listed_all: listed.all,
    };
    return { name: this.name, raw, report, text, complete, endText, redaction };
  }

  /** Discards the raw bytes written so far (temp file removed); used when the capture fails. */
  abort(): Promise<void> {
    return this.raw.abort();
  }
}
