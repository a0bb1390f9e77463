export { useArtifact, initialArtifact, type ArtifactState } from './artifact';
export { useView, initialView, notify, type ViewState, type Theme, type MainTab, type SideTab, type CompareMode } from './view';
export { useSelection, initialSelection, selectedRange, type SelectionState } from './selection';
export { useGrants, initialGrants, type GrantState, type GrantPhase } from './grants';
export { useSearch, initialSearch, type SearchState, type SearchMode } from './search';
export { useBookmarks, initialBookmarks, type BookmarkState } from './bookmarks';
export { useScreen, initialScreen, type ScreenState } from './screen';
export { useLayout, setPrefs, resetPrefs, type ChipDensity, type ViewPrefs } from './layout';
export { useTriage, setFilter, initialTriage, type TriageState } from './triage';
export { useRequests, initialRequests, loadRequests, reviewRequest, openRequests, type RequestsState } from './requests';
export { useFollow, initialFollow, type FollowState } from './follow';
import { initialArtifact, useArtifact } from './artifact';
import { initialBookmarks, useBookmarks } from './bookmarks';
import { initialGrants, useGrants } from './grants';
import { initialSearch, useSearch } from './search';
import { initialRequests, useRequests } from './requests';
import { initialScreen, useScreen } from './screen';
import { initialSelection, useSelection } from './selection';
import { initialView, useView } from './view';
import { resetPrefs } from './layout';
import { initialTriage, useTriage } from './triage';
import { initialFollow, useFollow } from './follow';

/** Back to a fresh app (tests; also closing the workspace resets the per-artifact slices). */
export function resetStores(): void {
  useArtifact.setState({ ...initialArtifact }, true);
  useView.setState(initialView(), true);
  useSelection.setState({ ...initialSelection }, true);
  useGrants.setState(initialGrants(), true);
  useSearch.setState({ ...initialSearch }, true);
  useBookmarks.setState({ ...initialBookmarks }, true);
  useScreen.setState({ ...initialScreen }, true);
  useRequests.setState(initialRequests(), true);
  useTriage.setState(initialTriage(), true);
  useFollow.setState(initialFollow(), true);
  resetPrefs();
}
