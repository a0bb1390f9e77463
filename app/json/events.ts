// A streaming reader of one JSON document: bytes in, events out, in memory bounded by the nesting
// depth and the longest number — never by the document or a string in it. Strings arrive as
// decoded pieces. JSON.parse needs the whole text and then holds the whole value: a vault record
// of 64 MiB sanitized text is 64 MiB read, 128 MiB as a string, and a heap that cannot hold it
// ends the command. Listing, verifying and pruning need a record's metadata, and showing it needs
// its text as a stream, so records are read through this instead.

/** What the reader reports, in document order. */
export interface JsonHandler {
  startObject(): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  /** An object member's name follows as one string (start, pieces, end) before its value. */
  startString(isKey: boolean): void;
  /** Decoded text of the current string; a surrogate pair may be split between two pieces. */
  stringPiece(text: string): void;
  endString(): void;
  /** A number, true, false or null. */
  primitive(value: number | boolean | null): void;
}

/** The bytes are not one valid JSON document. */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const enum S {
  Value,
  AfterValue,
  Key,
  Colon,
  String,
  Literal,
  Done,
}

/** Deepest nesting accepted (records are a few levels deep; hostile files may not recurse without bound). */
const MAX_DEPTH = 64;
/** Longest number or literal accepted. */
const MAX_LITERAL = 64;
/** Decoded text is handed on in pieces of about this many code units. */
const PIECE = 16 * 1024;


/**
 * Feeds chunks with {@link JsonReader.write}, then calls {@link JsonReader.end}. Strict RFC 8259:
 * whatever JSON.parse refuses (a control character in a string, a lone comma, trailing bytes),
 * this refuses with JsonSyntaxError naming the byte offset.
 */
export class JsonReader {
  private state = S.Value;
  /** Per open container: true for an object. */
  private readonly stack: boolean[] = [];
  private stringIsKey = false;
  private literal = '';
  private carry: Uint8Array | null = null;
  private piece = '';
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;

  constructor(private readonly handler: JsonHandler) {}

  write(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      const b = chunk[i];
      switch (this.state) {
        case S.String:
          i = this.stringBytes(chunk, i);
          continue;
        case S.Literal: {
          if (isLiteralByte(b)) {
            this.literal += String.fromCharCode(b);
            if (this.literal.length > MAX_LITERAL) this.fail(i, 'number or literal too long');
            i++;
            continue;
          }
          this.closeLiteral(i);
          continue; // the byte that ended it is read again in the new state
        }
        default:
          break;
      }
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
        i++;
        continue;
      }
      this.structural(b, i);
      i++;
    }
    this.offset += n;
  }

  /**
   * Reads string content from `i`: up to the closing quote (returns the index after it, the
   * string closed) or the end of the chunk. Whole runs are decoded natively: UTF-8 by the decoder
   * (which keeps a character split between chunks), escapes by JSON.parse of the run — which also
   * refuses a raw control character or a bad escape. An escape cut by the chunk's end waits in
   * `carry` for the next chunk.
   */
  private stringBytes(chunk: Uint8Array, i: number): number {
    let bytes = chunk.subarray(i);
    if (this.carry) {
      bytes = concatBytes(this.carry, bytes);
      this.carry = null;
    }
    const quote = unescapedQuote(bytes);
    let run = quote < 0 ? bytes : bytes.subarray(0, quote);
    if (quote < 0) {
      const cut = unfinishedEscape(run);
      if (cut < run.length) {
        this.carry = run.slice(cut);
        run = run.subarray(0, cut);
      }
    }
    if (run.length > 0) {
      const text = this.decode(run, true);
      let value: string;
      try {
        value = JSON.parse(`"${text}"`) as string;
      } catch {
        return this.fail(i, 'a control character or a bad escape in a string');
      }
      this.text(value);
    }
    if (quote < 0) return chunk.length;
    this.text(this.decode(new Uint8Array(0), false));
    this.closeString();
    return chunk.length - (bytes.length - quote) + 1;
  }

  /** The document is complete; throws when it is not. */
  end(): void {
    if (this.state === S.Literal) this.closeLiteral(0);
    if (this.state !== S.Done) throw new JsonSyntaxError(`JSON ends early (at byte ${this.offset})`);
  }

  private structural(b: number, i: number): void {
    const c = String.fromCharCode(b);
    switch (this.state) {
      case S.Value:
        if (c === '{') return this.open(true);
        if (c === '[') return this.open(false);
        if (c === '"') return this.openString(false);
        if (c === ']' && this.stack.length > 0 && !this.top() && this.emptyArray) {
          this.emptyArray = false;
          return this.close(false, i);
        }
        if (isLiteralStart(b)) {
          this.literal = c;
          this.state = S.Literal;
          return;
        }
        return this.fail(i, 'a value was expected');
      case S.Key:
        if (c === '"') return this.openString(true);
        if (c === '}' && this.emptyObject) {
          this.emptyObject = false;
          return this.close(true, i);
        }
        return this.fail(i, 'a member name was expected');
      case S.Colon:
        if (c === ':') {
          this.state = S.Value;
          return;
        }
        return this.fail(i, "':' was expected");
      case S.AfterValue:
        if (this.stack.length === 0) return this.fail(i, 'bytes after the end of the document');
        if (c === ',') {
          this.state = this.top() ? S.Key : S.Value;
          this.emptyObject = false;
          this.emptyArray = false;
          return;
        }
        if (c === '}' && this.top()) return this.close(true, i);
        if (c === ']' && !this.top()) return this.close(false, i);
        return this.fail(i, "',' or the end of the container was expected");
      case S.Done:
        return this.fail(i, 'bytes after the end of the document');
      default:
        return this.fail(i, 'unexpected byte');
    }
  }

  private emptyObject = false;
  private emptyArray = false;

  private top(): boolean {
    return this.stack[this.stack.length - 1];
  }

  private open(isObject: boolean): void {
    if (this.stack.length >= MAX_DEPTH) this.fail(0, `nested deeper than ${MAX_DEPTH}`);
    this.stack.push(isObject);
    this.emptyObject = false;
    this.emptyArray = false;
    if (isObject) {
      this.handler.startObject();
      this.state = S.Key;
      this.emptyObject = true;
    } else {
      this.handler.startArray();
      this.state = S.Value;
      this.emptyArray = true;
    }
  }

  private close(isObject: boolean, i: number): void {
    if (this.stack.pop() !== isObject) this.fail(i, 'mismatched bracket');
    if (isObject) this.handler.endObject();
    else this.handler.endArray();
    this.valueDone();
  }

  private openString(isKey: boolean): void {
    this.stringIsKey = isKey;
    this.emptyObject = false;
    this.emptyArray = false;
    this.handler.startString(isKey);
    this.state = S.String;
  }

  private closeString(): void {
    this.flush();
    this.handler.endString();
    if (this.stringIsKey) this.state = S.Colon;
    else this.valueDone();
  }

  private closeLiteral(i: number): void {
    let value: number | boolean | null;
    try {
      value = JSON.parse(this.literal) as number | boolean | null;
    } catch {
      return this.fail(i, `bad literal '${this.literal.slice(0, 20)}'`);
    }
    this.emptyArray = false;
    this.handler.primitive(value);
    this.valueDone();
  }

  private valueDone(): void {
    this.state = this.stack.length === 0 ? S.Done : S.AfterValue;
  }

  private decode(bytes: Uint8Array, stream: boolean): string {
    try {
      return this.decoder.decode(bytes, { stream });
    } catch {
      return this.fail(0, 'invalid UTF-8 in a string');
    }
  }

  private text(s: string): void {
    if (s.length === 0) return;
    this.piece += s;
    if (this.piece.length >= PIECE) this.flush();
  }

  private flush(): void {
    if (this.piece.length === 0) return;
    this.handler.stringPiece(this.piece);
    this.piece = '';
  }

  private fail(i: number, why: string): never {
    throw new JsonSyntaxError(`invalid JSON at byte ${this.offset + i}: ${why}`);
  }
}

function isLiteralStart(b: number): boolean {
  return b === 0x2d || (b >= 0x30 && b <= 0x39) || b === 0x74 || b === 0x66 || b === 0x6e;
}

function isLiteralByte(b: number): boolean {
  return isLiteralStart(b) || b === 0x2b || b === 0x2e || b === 0x45 || b === 0x65 || (b >= 0x61 && b <= 0x7a);
}

/** The index of the first quote in `b` that no backslash escapes, or -1. */
function unescapedQuote(b: Uint8Array): number {
  for (let at = b.indexOf(0x22); at >= 0; at = b.indexOf(0x22, at + 1)) {
    let slashes = 0;
    while (at - slashes - 1 >= 0 && b[at - slashes - 1] === 0x5c) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/** Where an escape that `b` ends inside (`\`, `\u12`) begins, or `b.length` when none does. */
function unfinishedEscape(b: Uint8Array): number {
  const n = b.length;
  const escapes = (at: number): boolean => {
    let slashes = 0;
    while (at - slashes >= 0 && b[at - slashes] === 0x5c) slashes++;
    return slashes % 2 === 1; // the backslash at `at` starts an escape
  };
  if (n > 0 && b[n - 1] === 0x5c && escapes(n - 1)) return n - 1;
  for (let t = 2; t <= 5 && t <= n; t++) {
    // `\u` followed by fewer than four hex digits at the end
    if (b[n - t + 1] === 0x75 && b[n - t] === 0x5c && escapes(n - t)) return n - t;
  }
  return n;
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
