// @vitest-environment happy-dom
// A grant survives going back to the vault (and switching streams) in the same window: the
// renderer never revokes on navigation, drops only the bytes it cached, lists the grant in the
// vault browser and adopts it again when the artifact is reopened. Main's grant list decides.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { closeArtifact, openArtifact } from '../../renderer/src/actions';
import { session } from '../../renderer/src/session';
import { useArtifact, useGrants } from '../../renderer/src/stores';
import { grantRaw, openSample, startApp, stopApp } from './setup';

afterEach(stopApp);

describe('grants across navigation', () => {
  it('going back to the vault keeps main\'s grant, drops the cached bytes, and reopening adopts it', async () => {
    const fake = await startApp();
    await openSample();
    await grantRaw();
    await waitFor(() => expect(session()!.pages.size).toBeGreaterThan(0));
    const grant = useGrants.getState().grant!;
    const pages = session()!.pages;
    await act(() => closeArtifact());
    expect(fake.control.grants.has(grant.id)).toBe(true);
    expect(pages.size).toBe(0);
    expect(fake.control.calls.filter((c) => c === 'revokeGrant')).toHaveLength(0);
    // The vault browser says so, with a Revoke.
    const listed = await screen.findByTestId('vault-grant');
    expect(listed.dataset.ref).toBe(grant.ref);
    expect(listed.textContent).toMatch(/expires in \d+:\d\d/);
    // Reopened: the same grant, no new request.
    const record = useArtifact.getState().records.find((r) => r.artifacts.some((a) => a.ref === grant.ref))!;
    await act(() => openArtifact(record, record.artifacts.find((a) => a.ref === grant.ref)!));
    await waitFor(() => expect(useGrants.getState().grant?.id).toBe(grant.id));
    expect(fake.control.calls.filter((c) => c === 'requestRawAccess')).toHaveLength(1);
    await waitFor(() => expect(screen.getAllByTestId('hex-row').length).toBeGreaterThan(0));
  });

  it('revoking from the vault browser ends it in main; reopening then asks again', async () => {
    const fake = await startApp();
    await openSample();
    await grantRaw();
    const grant = useGrants.getState().grant!;
    await act(() => closeArtifact());
    fireEvent.click(within(await screen.findByTestId('vault-grant')).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(fake.control.grants.has(grant.id)).toBe(false));
    await waitFor(() => expect(screen.queryByTestId('vault-grant')).toBeNull());
    await openSample();
    expect(useGrants.getState().grant).toBeNull();
    expect(screen.getByRole('button', { name: 'Show raw bytes' })).toBeTruthy();
  });
});
