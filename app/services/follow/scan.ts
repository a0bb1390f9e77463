// The removal counts and minimap of a running capture's stream, kept up to date as its raw bytes
// grow: one Sanitizer fed each new byte once (never again from byte 0), its span starts counted in
// byte buckets that double in width when the stream outgrows them. Runs in a worker thread
// (scan-host.ts); nothing here returns a byte or a span's value, only counts.
import { Sanitizer, type RemovalReport } from '../../../shared/sanitize';
import { SPAN_CLASS_COUNT } from '../../../shared/parser/span-class';
import type { IndexSanitizerOptions } from '../artifact/format';

/** Buckets kept per class; past them two neighbours merge (the width doubles). */
export const SCAN_BUCKETS = 4096;
/** Width of a bucket while the stream is small. */
const FIRST_BUCKET_BYTES = 64;

/** What a scan has counted so far. */
export interface ScanSnapshot {
  /** Raw bytes fed so far. */
  readonly scanned: number;
  readonly report: RemovalReport;
  /** Span starts per class in `buckets` equal stretches of the bytes fed so far. */
  readonly minimap: { readonly buckets: number; readonly bucketBytes: number; readonly counts: number[][] };
}

export class RunningScan {
  private readonly sanitizer: Sanitizer;
  private readonly counts: Float64Array[] = Array.from({ length: SPAN_CLASS_COUNT }, () => new Float64Array(SCAN_BUCKETS));
  private bucketBytes = FIRST_BUCKET_BYTES;
  private fed = 0;

  constructor(options: IndexSanitizerOptions) {
    this.sanitizer = new Sanitizer({ cr: options.cr, limits: options.limits, reuseOutputBuffer: true, hooks: { onSpan: (cls, offset) => this.count(cls, offset) } });
  }

  get scanned(): number {
    return this.fed;
  }

  /** Feeds the next bytes of the stream (the text is dropped: the capture stored its own). */
  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.sanitizer.write(bytes);
    this.fed += bytes.length;
  }

  /** The counts so far, the minimap summed into at most `buckets` stretches. */
  snapshot(buckets: number): ScanSnapshot {
    const used = Math.max(1, Math.ceil(this.fed / this.bucketBytes));
    const per = Math.max(1, Math.ceil(used / Math.max(1, buckets)));
    const out = Math.ceil(used / per);
    const counts = this.counts.map((row) => {
      const sums = new Array<number>(out).fill(0);
      for (let k = 0; k < used; k++) sums[Math.floor(k / per)] += row[k];
      return sums;
    });
    return { scanned: this.fed, report: this.sanitizer.getReport(), minimap: { buckets: out, bucketBytes: this.bucketBytes * per, counts } };
  }

  private count(cls: number, offset: number): void {
    let b = Math.floor(offset / this.bucketBytes);
    while (b >= SCAN_BUCKETS) {
      this.coarsen();
      b = Math.floor(offset / this.bucketBytes);
    }
    this.counts[cls][b]++;
  }

  /** Doubles the bucket width: bucket k takes 2k and 2k+1. Each doubling halves what is left to merge, so the total is linear. */
  private coarsen(): void {
    for (const row of this.counts) {
      for (let k = 0; k < SCAN_BUCKETS / 2; k++) row[k] = row[2 * k] + row[2 * k + 1];
      row.fill(0, SCAN_BUCKETS / 2);
    }
    this.bucketBytes *= 2;
  }
}
