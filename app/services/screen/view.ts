// The screen engine behind the viewer's bridge (`getScreen`, run in a worker by jobs.ts) and the
// MCP `screen` tool: an artifact's raw file streamed through the engine piece by piece (no size
// limit: the engine's memory does not grow with the input), its text made inert, bounded in
// findings.
import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { MAX_SCREEN_FINDING_TEXT, MAX_SCREEN_FINDINGS } from '../../../shared/bridge/limits';
import type { ScreenView } from '../../../shared/bridge/types';
import { sanitize } from '../../../shared/sanitize';
import { BridgeError } from '../bridge/errors';
import { ScreenEngine, SCREEN_PIECE_BYTES, type ScreenReport } from './engine';

/**
 * Text as the sanitizer keeps it: a finding's characters are kept text already, but made inert
 * once more here (the renderer shows them as plain text), as is every screen line.
 */
function inert(text: string): string {
  return new TextDecoder().decode(sanitize(new TextEncoder().encode(text)).text);
}

/** How a streamed reconstruction reports progress and learns to stop. */
export interface ScreenRunOptions {
  /** Called after each piece with the bytes fed so far. */
  onProgress?(bytesDone: number): void;
  /** Checked after each piece: a message stops the run (thrown as an Error with it). */
  shouldStop?(): string | null;
  /** Refuse ('too-large') a file larger than this (a caller that answers in line: the MCP tool). */
  maxBytes?: number;
}

/** The screen view of the raw file at `path` (`size` bytes as listed), on a terminal of `cols` x `rows`, streamed. */
export async function screenView(path: string, size: number, cols: number, rows: number, o: ScreenRunOptions = {}): Promise<ScreenView> {
  if (o.maxBytes !== undefined && size > o.maxBytes) {
    throw new BridgeError('too-large', `the artifact is ${size} bytes; this screen view takes at most ${o.maxBytes} (the viewer's Screen tab, or airlock screen --max-bytes, takes more)`);
  }
  const engine = new ScreenEngine({ cols, rows, maxFindings: MAX_SCREEN_FINDINGS, maxFindingText: MAX_SCREEN_FINDING_TEXT, expectedBytes: size });
  const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const piece = Buffer.allocUnsafe(SCREEN_PIECE_BYTES);
    for (let pos = 0; ;) {
      const { bytesRead } = await fh.read(piece, 0, piece.length, pos);
      if (bytesRead === 0) break;
      engine.write(piece.subarray(0, bytesRead));
      pos += bytesRead;
      o.onProgress?.(pos);
      const stop = o.shouldStop?.();
      if (stop) throw new Error(stop);
    }
  } finally {
    await fh.close();
  }
  return viewOf(engine.end());
}

/** The screen view of `bytes` (see {@link screenView}), in one go. */
export function screenViewOf(bytes: Uint8Array, cols: number, rows: number): ScreenView {
  const engine = new ScreenEngine({ cols, rows, maxFindings: MAX_SCREEN_FINDINGS, maxFindingText: MAX_SCREEN_FINDING_TEXT, expectedBytes: bytes.length });
  for (let at = 0; at < bytes.length; at += SCREEN_PIECE_BYTES) engine.write(bytes.subarray(at, at + SCREEN_PIECE_BYTES));
  return viewOf(engine.end());
}

function viewOf(r: ScreenReport): ScreenView {
  const c = r.counts;
  return {
    cols: r.cols,
    rows: r.rows,
    emulator: r.emulator,
    findings: r.findings.map((f) => ({ ...f, text: inert(f.text) })),
    truncated: c.overwritten + c.erased + c.concealed + c.same_colour > r.findings.length,
    counts: r.counts,
    screen: r.screen.map(inert),
    withheldCells: r.withheldCells,
    unfollowedBytes: r.unfollowedBytes,
    alternateScreen: r.alternateScreen,
    layoutVerified: r.layoutVerified,
    causesComplete: r.causesComplete,
  };
}
