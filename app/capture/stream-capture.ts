import { Sanitizer, type RemovalReport, type SanitizerOptions } from '../../shared/sanitize';
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
}

/**
 * The per-stream pipeline: every chunk goes, as it arrives, to the vault's RawWriter (hashed and
 * written, 0600; {@link store}) and then, in the same order, through this stream's own Sanitizer
 * into a bounded {@link TextWindow} ({@link sanitize}; runCapture lets this run a little behind,
 * at most a bounded queue of chunks). Nothing here holds more than --max-text of text plus the
 * writer's staging buffers, whatever the child writes. stdout and stderr each get one, so neither
 * can influence how the other is parsed.
 */
export class StreamCapture {
  private readonly sanitizer: Sanitizer;
  private readonly window: TextWindow;
  private rawBytes = 0;
  private textBytes = 0;

  constructor(
    readonly name: StreamName,
    private readonly raw: RawWriter,
    sanitizer: Pick<SanitizerOptions, 'cr' | 'limits'>,
    maxText: number,
  ) {
    // No digest here: the RawWriter already hashes the same bytes, and its digest goes in the report.
    // The output buffer is reused: the TextWindow copies what it keeps before the next write.
    this.sanitizer = new Sanitizer({ cr: sanitizer.cr, limits: sanitizer.limits, reuseOutputBuffer: true });
    this.window = new TextWindow(maxText);
  }

  /** Raw bytes accepted so far (the offset of the next chunk in this stream). */
  get bytes(): number {
    return this.rawBytes;
  }

  /** Sanitized bytes emitted so far (the text offset of the next chunk's text). */
  get textOffset(): number {
    return this.textBytes;
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

  /** Sanitizes the next stored chunk into the text window; returns the text bytes it produced. */
  sanitize(chunk: Uint8Array): number {
    const text = this.sanitizer.write(chunk);
    this.window.push(text);
    this.textBytes += text.length;
    return text.length;
  }

  /**
   * Ends the stream: flushes the sanitizer (an unterminated string is counted, never emitted),
   * commits the raw bytes and builds the result. `complete` false marks the report truncated.
   */
  async finish(complete: boolean): Promise<StreamResult> {
    const tail = this.sanitizer.end();
    const endText = { offset: this.textBytes, length: tail.length };
    this.window.push(tail);
    this.textBytes += tail.length;
    const raw = await this.raw.commit();
    const report = { ...this.sanitizer.getReport(!complete), sha256: raw.sha256 };
    return { name: this.name, raw, report, text: this.window.finish(), complete, endText };
  }

  /** Discards the raw bytes written so far (temp file removed); used when the capture fails. */
  abort(): Promise<void> {
    return this.raw.abort();
  }
}
