import type { Vault } from '../../node/vault';
import type { AirlockBridge } from '../../../shared/bridge/contract';
import type { ArtifactRef, ChunkLogView, ScreenStatus, SearchHits, SecretValue, SpanValue } from '../../../shared/bridge/types';

/** The artifact methods the dispatcher delegates as they are (each takes the artifact's ref first). */
export const ARTIFACT_METHODS = [
  'startIndex', 'getIndexStatus', 'cancelIndex', 'getSpans', 'findSpan', 'getMinimap', 'getTextLines', 'getSecrets',
  'textPositionOf', 'listBookmarks', 'saveBookmark', 'deleteBookmark',
] as const;

/**
 * What the dispatcher needs from ARTIFACT's service (`app/services/artifact`, factory
 * `createArtifactService({ vault, rawPath })`): the bridge methods of the same names and types
 * (taken from the contract, so the two cannot drift), with arguments already validated and the
 * reference already checked to be in the vault; and the methods the dispatcher calls with more
 * than the renderer gave: the searches with the signal that ends them (one search per window),
 * searchRaw and spanValues with the range the caller's grant allows (null: all), the screen with
 * the asking window.
 */
export type ArtifactPort = Pick<AirlockBridge, (typeof ARTIFACT_METHODS)[number]> & {
  searchText(ref: ArtifactRef, query: string, options: { caseSensitive?: boolean }, signal: AbortSignal | null): Promise<SearchHits>;
  searchRaw(ref: ArtifactRef, range: [number, number] | null, query: { mode: 'hex' | 'text'; pattern: string }, signal: AbortSignal | null): Promise<SearchHits>;
  spanValues(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<SpanValue[]>;
  secretValues(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<SecretValue[]>;
  getScreen(ref: ArtifactRef, size: { cols: number; rows: number }, windowId: number): Promise<ScreenStatus>;
  cancelScreen(ref: ArtifactRef, size: { cols: number; rows: number }, windowId: number): Promise<ScreenStatus>;
  /** A window closed: what it asked for that nobody else wants stops. */
  windowClosed?(windowId: number): void;
  getChunkLog?(recordId: string): Promise<ChunkLogView>;
  /** Stops workers (app quitting). */
  close?(): Promise<void> | void;
};

/** The factory ARTIFACT exports. */
export type ArtifactFactory = (opts: { vault: Vault; rawPath(sha256: string): string }) => ArtifactPort;
