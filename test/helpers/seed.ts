/**
 * A faithful TypeScript port of `clean_terminal_bytes` from the seed article (seed/000_…txt), used
 * as a negative reference: tests show an input where the seed function goes wrong and assert that
 * Airlock gets it right. Python's `bytes.decode('utf-8', errors='replace')` replaces maximal
 * ill-formed subparts with U+FFFD, as TextDecoder does.
 */
export interface SeedCounts {
  esc: number;
  csi: number;
  string: number;
  control: number;
}

export function seedClean(data: Uint8Array): { text: string; counts: SeedCounts } {
  const out: number[] = [];
  const counts: SeedCounts = { esc: 0, csi: 0, string: 0, control: 0 };
  let i = 0;
  const n = data.length;
  while (i < n) {
    const b = data[i];
    if (b === 0x1b) {
      counts.esc++;
      i++;
      if (i >= n) break;
      const nxt = data[i];
      if (nxt === 0x5b) {
        counts.csi++;
        i++;
        while (i < n) {
          const c = data[i];
          i++;
          if (c >= 0x40 && c <= 0x7e) break;
        }
        continue;
      }
      if ([0x5d, 0x50, 0x5f, 0x5e, 0x58].includes(nxt)) {
        counts.string++;
        i++;
        while (i < n) {
          const c = data[i];
          if (c === 0x07) {
            i++;
            break;
          }
          if (c === 0x1b && i + 1 < n && data[i + 1] === 0x5c) {
            i += 2;
            break;
          }
          i++;
        }
        continue;
      }
      i++; // Two-byte ESC function or unknown ESC form
      continue;
    }
    if (b === 0x9b) {
      counts.csi++;
      i++;
      while (i < n) {
        const c = data[i];
        i++;
        if (c >= 0x40 && c <= 0x7e) break;
      }
      continue;
    }
    if ((b >= 0x80 && b <= 0x9f) || (b < 0x20 && b !== 0x09 && b !== 0x0a)) {
      counts.control++;
      i++;
      continue;
    }
    out.push(b);
    i++;
  }
  return { text: new TextDecoder('utf-8').decode(Uint8Array.from(out)), counts };
}
