// The screen engine behind the viewer's bridge (`getScreen`): an artifact's raw file through
// reconstructScreen, its text made inert for the renderer, bounded in size and in findings.
import { readFile } from 'node:fs/promises';
import { MAX_SCREEN_BYTES, MAX_SCREEN_FINDINGS } from '../../../shared/bridge/contract';
import type { ScreenView } from '../../../shared/bridge/types';
import { sanitize } from '../../../shared/sanitize';
import { BridgeError } from '../bridge/errors';
import { reconstructScreen } from './engine';

/**
 * Text as the sanitizer keeps it: a screen line may hold what the emulator printed from bytes
 * the sanitizer removed (a bidi override, a zero-width run), which must not reach the renderer
 * as characters; they are invisible on a real screen too.
 */
function inert(text: string): string {
  return new TextDecoder().decode(sanitize(new TextEncoder().encode(text)).text);
}

/** The screen view of the raw file at `path` (`size` bytes), on a terminal of `cols` x `rows`. */
export async function screenView(path: string, size: number, cols: number, rows: number): Promise<ScreenView> {
  if (size > MAX_SCREEN_BYTES) throw new BridgeError('too-large', `the artifact is ${size} bytes; the screen engine takes at most ${MAX_SCREEN_BYTES} (use airlock screen --max-bytes)`);
  return screenViewOf(await readFile(path), cols, rows);
}

/** The screen view of `bytes` (see {@link screenView}). */
export function screenViewOf(bytes: Uint8Array, cols: number, rows: number): ScreenView {
  const r = reconstructScreen(bytes, { cols, rows });
  const listed = r.findings.slice(0, MAX_SCREEN_FINDINGS);
  return {
    cols: r.cols,
    rows: r.rows,
    emulator: r.emulator,
    findings: listed.map((f) => ({ ...f, text: inert(f.text) })),
    truncated: r.findings.length > listed.length,
    counts: r.counts,
    screen: r.screen.map(inert),
    alternateScreen: r.alternateScreen,
    layoutVerified: r.layoutVerified,
    causesComplete: r.causesComplete,
  };
}
