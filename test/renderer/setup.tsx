// Shared set-up for component tests: a fresh store, the fake bridge, and the app rendered.
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { expect } from 'vitest';
import { setBridge } from '../../renderer/src/bridge';
import { App } from '../../renderer/src/App';
import { openArtifact, requestRaw } from '../../renderer/src/actions';
import { closeSession } from '../../renderer/src/session';
import { resetStores, useArtifact } from '../../renderer/src/stores';
import { createFakeBridge, type FakeBridge, type FakeBridgeOptions } from './fake-bridge';

/**
 * Unmounts the app and drops the session, stores and bridge. Every file that renders calls this
 * after each test: an app left mounted keeps polling and re-rendering after the test, and React work
 * scheduled then runs once the DOM environment is gone ("window is not defined", a CI failure).
 */
export function stopApp(): void {
  cleanup();
  closeSession();
  resetStores();
  setBridge(null);
}

export async function startApp(options: FakeBridgeOptions = {}): Promise<FakeBridge> {
  stopApp();
  const fake = createFakeBridge(options);
  setBridge(fake);
  render(<App />);
  await screen.findAllByTestId('artifact-row');
  return fake;
}

/** Opens record `recordIndex`'s artifact `artifactIndex` in the workspace. */
export async function openSample(recordIndex = 0, artifactIndex = 0): Promise<void> {
  const record = useArtifact.getState().records[recordIndex];
  await act(() => openArtifact(record, record.artifacts[artifactIndex]));
  await waitFor(() => expect(useArtifact.getState().report).not.toBeNull());
}

export async function grantRaw(): Promise<void> {
  await act(() => requestRaw());
}

/** Text that may be pasted anywhere: no ESC, no C0 but LF/TAB, no DEL, no C1, no invisible. */
export const NOT_INERT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/u;
