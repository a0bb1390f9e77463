import type { Vault } from '../../node/vault';
import type { AirlockBridge } from '../../../shared/bridge/contract';
import type { ArtifactRef, ChunkLogView, SearchHits } from '../../../shared/bridge/types';

/** The artifact methods the dispatcher delegates as they are (each takes the artifact's ref first). */
export const ARTIFACT_METHODS = [
  'startIndex', 'getIndexStatus', 'cancelIndex', 'getSpans', 'findSpan', 'getMinimap', 'getTextLines',
  'textPositionOf', 'searchText', 'getScreen', 'listBookmarks', 'saveBookmark', 'deleteBookmark',
] as const;

/**
 * What the dispatcher needs from ARTIFACT's service (`app/services/artifact`, factory
 * `createArtifactService({ vault, rawPath })`): the bridge methods of the same names and types
 * (taken from the contract, so the two cannot drift), with arguments already validated and the
 * reference already checked to be in the vault. `searchRaw` differs from the bridge's: main
 * resolves the caller's grant first and passes the artifact and the range it allows (null: all).
 */
export type ArtifactPort = Pick<AirlockBridge, (typeof ARTIFACT_METHODS)[number]> & {
  searchRaw(ref: ArtifactRef, range: [number, number] | null, query: { mode: 'hex' | 'text'; pattern: string }): Promise<SearchHits>;
  getChunkLog?(recordId: string): Promise<ChunkLogView>;
  /** Stops workers (app quitting). */
  close?(): Promise<void> | void;
};

/** The factory ARTIFACT exports. */
export type ArtifactFactory = (opts: { vault: Vault; rawPath(sha256: string): string }) => ArtifactPort;
