// UTF-8 helpers of the redaction stage. TextDecoder/TextEncoder are language-host globals in Node,
// Chromium and Electron alike; shared/ compiles without DOM types, so they are declared here.
declare const TextDecoder: { new (label?: string): { decode(input?: Uint8Array): string } };
declare const TextEncoder: { new (): { encode(input?: string): Uint8Array } };

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Decodes valid UTF-8 (the Sanitizer's output always is). */
export function decodeUtf8(bytes: Uint8Array): string {
  return bytes.length === 0 ? '' : decoder.decode(bytes);
}

export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** UTF-8 length of `text.slice(from, to)`, counted without building the slice. */
export function utf8Length(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The largest offset ≤ `at` that does not fall inside a UTF-8 character of `bytes`. */
export function charBoundary(bytes: Uint8Array, at: number): number {
  let k = at;
  while (k > 0 && k < bytes.length && (bytes[k] & 0xc0) === 0x80) k--;
  return k;
}
