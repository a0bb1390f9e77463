import { JsonReader, JsonSyntaxError, type JsonHandler } from './events';

/** A string too long to keep: its first characters, its length and how many line breaks it holds. */
export class LongString {
  constructor(
    readonly head: string,
    /** Length in UTF-16 code units, as String#length counts. */
    readonly length: number,
    readonly lines: number,
    /** Whether its last character is a line break. */
    readonly endsWithNewline: boolean = false,
  ) {}
}

/** An array too long to keep: its first items and its length. */
export class LongArray {
  constructor(
    readonly items: unknown[],
    readonly length: number,
  ) {}
}

/** How much of a document {@link JsonProjection} keeps. */
export interface ProjectionLimits {
  /** Longer strings become LongString. */
  readonly maxString: number;
  /** Longer arrays become LongArray. */
  readonly maxItems: number;
  /**
   * Strings at a path this accepts are not kept at all but handed to `onText` piece by piece
   * (their place holds a LongString with their length): how `vault show` streams a record's text.
   */
  readonly stream?: (path: readonly string[]) => boolean;
  readonly onText?: (path: readonly string[], piece: string) => void;
}

/** Longest member name kept (record keys are short identifiers). */
const MAX_KEY = 256;

type Frame = { value: Record<string, unknown> | unknown[]; key: string | null; count: number; long: boolean };

/**
 * Builds the value a JsonReader reads, in memory bounded by the limits: every string longer than
 * `maxString` is kept as a {@link LongString} and every array longer than `maxItems` as a
 * {@link LongArray}, so whatever the document's size, what is held is its shape and its short
 * fields (a record's ids, digests, metadata).
 */
export class JsonProjection implements JsonHandler {
  private readonly frames: Frame[] = [];
  private root: unknown = undefined;
  private done = false;
  private str: { isKey: boolean; text: string; length: number; lines: number; last: string; streamed: readonly string[] | null } | null = null;

  constructor(private readonly limits: ProjectionLimits) {}

  /** The projected value once the document ended. */
  get value(): unknown {
    if (!this.done) throw new JsonSyntaxError('JSON document is incomplete');
    return this.root;
  }

  startObject(): void {
    this.frames.push({ value: {}, key: null, count: 0, long: false });
  }

  endObject(): void {
    this.add(this.frames.pop()!.value);
  }

  startArray(): void {
    this.frames.push({ value: [], key: null, count: 0, long: false });
  }

  endArray(): void {
    const f = this.frames.pop()!;
    this.add(f.long ? new LongArray(f.value as unknown[], f.count) : f.value);
  }

  startString(isKey: boolean): void {
    const path = isKey ? null : this.path();
    const streamed = path && this.limits.stream?.(path) ? path : null;
    this.str = { isKey, text: '', length: 0, lines: 0, last: '', streamed };
  }

  stringPiece(piece: string): void {
    const s = this.str!;
    s.length += piece.length;
    if (s.isKey) {
      if (s.length > MAX_KEY) throw new JsonSyntaxError(`a member name is longer than ${MAX_KEY} characters`);
      s.text += piece;
      return;
    }
    for (let i = piece.indexOf('\n'); i >= 0; i = piece.indexOf('\n', i + 1)) s.lines++;
    if (piece.length > 0) s.last = piece[piece.length - 1];
    if (s.streamed) {
      this.limits.onText?.(s.streamed, piece);
      return;
    }
    if (s.text.length <= this.limits.maxString) s.text += piece.slice(0, this.limits.maxString + 1 - s.text.length);
  }

  endString(): void {
    const s = this.str!;
    this.str = null;
    if (s.isKey) {
      this.frames[this.frames.length - 1].key = s.text;
      return;
    }
    const long = s.streamed !== null || s.length > this.limits.maxString;
    this.add(long ? new LongString(s.text.slice(0, this.limits.maxString), s.length, s.lines, s.last === '\n') : s.text);
  }

  primitive(value: number | boolean | null): void {
    this.add(value);
  }

  /** Member names from the root to the value being read (array items as their index). */
  private path(): string[] {
    return this.frames.map((f) => (Array.isArray(f.value) ? String(f.count) : (f.key ?? '')));
  }

  private add(value: unknown): void {
    const f = this.frames[this.frames.length - 1];
    if (!f) {
      this.root = value;
      this.done = true;
      return;
    }
    if (Array.isArray(f.value)) {
      if (f.count < this.limits.maxItems) f.value.push(value);
      else f.long = true;
      f.count++;
      return;
    }
    // A duplicate name keeps the last value, and `__proto__` is an own member, as JSON.parse has them.
    Object.defineProperty(f.value, f.key!, { value, enumerable: true, writable: true, configurable: true });
    f.key = null;
    f.count++;
  }
}

/** Projects a whole document given as chunks (for tests and small inputs). */
export function projectJson(chunks: Iterable<Uint8Array>, limits: ProjectionLimits): unknown {
  const projection = new JsonProjection(limits);
  const reader = new JsonReader(projection);
  for (const c of chunks) reader.write(c);
  reader.end();
  return projection.value;
}
