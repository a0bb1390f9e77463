import type { Vault } from '../../node/vault';
import type {
  ArtifactRef, Bookmark, ChunkLogView, IndexStatus, Minimap, SearchHits, SpanInfo, TextPage, TextPosition,
} from '../../../shared/bridge/types';

/**
 * What the dispatcher needs from ARTIFACT's service (`app/services/artifact`, factory
 * `createArtifactService({ vault, rawPath })`): the bridge methods of the same names, with
 * arguments already validated and the reference already checked to be in the vault.
 * `searchRaw` gets the range the caller's grant allows (null: the whole artifact).
 */
export interface ArtifactPort {
  startIndex(ref: ArtifactRef): Promise<IndexStatus>;
  getIndexStatus(ref: ArtifactRef): Promise<IndexStatus>;
  cancelIndex(ref: ArtifactRef): Promise<IndexStatus>;
  getSpans(ref: ArtifactRef, offset: number, length: number): Promise<SpanInfo[]>;
  findSpan(ref: ArtifactRef, from: number, direction: 1 | -1, filter: { cls?: number; meaning?: string }): Promise<SpanInfo | null>;
  getMinimap(ref: ArtifactRef, buckets: number): Promise<Minimap>;
  getTextLines(ref: ArtifactRef, firstLine: number, count: number): Promise<TextPage>;
  textPositionOf(ref: ArtifactRef, rawOffset: number): Promise<TextPosition | null>;
  searchText(ref: ArtifactRef, query: string, options: { caseSensitive?: boolean }): Promise<SearchHits>;
  searchRaw(ref: ArtifactRef, range: [number, number] | null, query: { mode: 'hex' | 'text'; pattern: string }): Promise<SearchHits>;
  getChunkLog?(recordId: string): Promise<ChunkLogView>;
  listBookmarks(ref: ArtifactRef): Promise<Bookmark[]>;
  saveBookmark(ref: ArtifactRef, bookmark: { offset: number; length: number; note: string }): Promise<Bookmark>;
  deleteBookmark(ref: ArtifactRef, id: string): Promise<void>;
  /** Stops workers (app quitting). */
  close?(): Promise<void> | void;
}

/** The factory ARTIFACT exports. */
export type ArtifactFactory = (opts: { vault: Vault; rawPath(sha256: string): string }) => ArtifactPort;

/** The artifact methods the dispatcher delegates (all take a ref first, except searchRaw/getChunkLog). */
export const ARTIFACT_METHODS = [
  'startIndex', 'getIndexStatus', 'cancelIndex', 'getSpans', 'findSpan', 'getMinimap', 'getTextLines',
  'textPositionOf', 'searchText', 'listBookmarks', 'saveBookmark', 'deleteBookmark',
] as const;
