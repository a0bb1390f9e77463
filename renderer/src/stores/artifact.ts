import { create } from 'zustand';
import type { ArtifactSummary, IndexStatus, Minimap, RecordSummary, RemovalReport, VaultInfo } from '../../../shared/bridge/types';

export interface ArtifactState {
  vault: VaultInfo | null;
  records: RecordSummary[];
  loading: boolean;
  error: string | null;
  /** The record and artifact open in the workspace (null: the vault browser shows). */
  record: RecordSummary | null;
  artifact: ArtifactSummary | null;
  status: IndexStatus | null;
  report: RemovalReport | null;
  minimap: Minimap | null;
  totalLines: number;
}

export const initialArtifact: ArtifactState = {
  vault: null, records: [], loading: false, error: null, record: null, artifact: null, status: null, report: null, minimap: null, totalLines: 0,
};

export const useArtifact = create<ArtifactState>(() => ({ ...initialArtifact }));
