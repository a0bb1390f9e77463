// User Timing for benchmarks: a go-to marks `airlock:jump-start`; the first animation frame in
// which the target row is drawn with its bytes measures `airlock:jump` (read it with
// performance.getEntriesByName('airlock:jump', 'measure')). One rAF loop per jump, at most 10 s.

let seq = 0;

function landed(offset: number): boolean {
  const cell = document.querySelector(`.hx[data-o="${offset}"]`);
  return cell !== null && cell.textContent !== '··';
}

export function markJump(offset: number): void {
  if (typeof performance === 'undefined' || typeof requestAnimationFrame === 'undefined') return;
  const mine = ++seq;
  performance.mark('airlock:jump-start');
  const t0 = performance.now();
  const check = () => {
    if (mine !== seq) return;
    if (landed(offset)) {
      performance.measure('airlock:jump', 'airlock:jump-start');
      return;
    }
    if (performance.now() - t0 < 10_000) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}
