import type { Vault } from '../../vault';
import type { AirlockBridge } from '../../../shared/bridge/contract';
import type { ArtifactRef, ScreenStatus, SearchHits, PayloadPage, SecretValue, SpanValue } from '../../../shared/bridge/types';

/**
 * What the dispatcher needs from the artifact service (`createArtifactService` in
 * app/services/artifact): the bridge methods it answers as they are, with the table's types (so
 * the two cannot drift), called with arguments already validated and the reference already
 * checked to be in the vault; and the methods the dispatcher calls with more than the renderer
 * gave: the searches with the signal that ends them (one search per window), searchRaw,
 * spanValues and secretValues with the range the caller's grant allows (null: all), the screen
 * with the asking window.
 */
export type ArtifactPort = Pick<AirlockBridge,
  'startIndex' | 'getIndexStatus' | 'cancelIndex' | 'getSpans' | 'findSpan' | 'getMinimap' | 'getTextLines' | 'getSecrets' | 'textPositionOf' |
  'listBookmarks' | 'saveBookmark' | 'deleteBookmark' | 'getChunkLog'> & {
  searchText(ref: ArtifactRef, query: string, options: { caseSensitive?: boolean }, signal: AbortSignal | null): Promise<SearchHits>;
  searchRaw(ref: ArtifactRef, range: readonly [number, number] | null, query: { mode: 'hex' | 'text'; pattern: string }, signal: AbortSignal | null): Promise<SearchHits>;
  spanValues(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<SpanValue[]>;
  payloads(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<PayloadPage>;
  secretValues(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<SecretValue[]>;
  getScreen(ref: ArtifactRef, size: { cols: number; rows: number }, windowId: number): Promise<ScreenStatus>;
  cancelScreen(ref: ArtifactRef, size: { cols: number; rows: number }, windowId: number): Promise<ScreenStatus>;
  /** A window closed: what it asked for that nobody else wants stops. */
  windowClosed(windowId: number): void;
  /** Stops workers (app quitting). */
  close(): Promise<void>;
};

/** Makes the artifact service for a vault (createArtifactService; a test may pass another). */
export type ArtifactFactory = (opts: { vault: Vault; rawPath(sha256: string): string }) => ArtifactPort;
