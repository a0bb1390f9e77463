// AssemblyScript. The engine's regions are taken from the memory above HEAP and never given back:
// an engine lives for one dump, and what it takes grows only for inputs that need more.
import { C_MOVED, CTRL, HEAP } from './layout';

let top: usize = HEAP;

/**
 * `n` bytes (16-byte aligned), the memory grown when it must be. They are zero: nothing below `top`
 * is handed out again, and memory is zero until written (so a table whose empty entry is zero needs
 * no fill, which would touch every page of it).
 */
export function alloc(n: usize): usize {
  const at = (top + 15) & ~(<usize>15);
  top = at + n;
  const have = <usize>memory.size() << 16;
  if (top > have) memory.grow(<i32>((top - have + 0xffff) >>> 16));
  const moved = CTRL + (<usize>C_MOVED << 3);
  store<f64>(moved, load<f64>(moved) + 1);
  return at;
}
