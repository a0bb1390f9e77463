/** A byte count in the largest binary unit it reaches (KiB to TiB), or in bytes below 1 KiB. */
export function binarySize(bytes: number): { readonly value: number; readonly unit: 'B' | 'KiB' | 'MiB' | 'GiB' | 'TiB' } {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'] as const;
  if (bytes < 1024) return { value: bytes, unit: 'B' };
  let value = bytes / 1024;
  let u = 0;
  while (value >= 1024 && u < units.length - 1) {
    value /= 1024;
    u++;
  }
  return { value, unit: units[u] };
}
