/** `0x10–0x20 (16 B)` or `whole artifact`; the size keeps its unit (a no-break space), so a narrow column breaks before it. */
export function rangeLabel(range: readonly [number, number] | null): string {
  if (!range) return 'whole artifact';
  return `0x${range[0].toString(16)}–0x${range[1].toString(16)} (${(range[1] - range[0]).toLocaleString('en-US')}\u00a0B)`;
}

/** `5 min ago`, `in 23 h`: coarse, for a dense list. */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const text = abs < 60_000 ? `${Math.round(abs / 1000)} s` : abs < 3_600_000 ? `${Math.round(abs / 60_000)} min` : abs < 172_800_000 ? `${Math.round(abs / 3_600_000)} h` : `${Math.round(abs / 86_400_000)} d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}
