import { useEffect } from 'react';
import { revokeRaw, tickGrant } from '../actions';
import { useGrants } from '../stores';

function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Shown while raw bytes are visible: what the grant covers, when it ends, and Revoke. */
export function GrantBanner() {
  const grant = useGrants((g) => g.grant);
  const now = useGrants((g) => g.now);
  useEffect(() => {
    if (!grant) return;
    const t = setInterval(() => tickGrant(), 1000);
    return () => clearInterval(t);
  }, [grant]);
  if (!grant) return null;
  const left = grant.expiresAt - now;
  return (
    <div className={`grant-banner${left < 60_000 ? ' soon' : ''}`} data-testid="grant-banner" role="status" aria-live="polite">
      <span className="grant-dot" aria-hidden="true" />
      <strong>Raw access granted</strong>
      <span>{grant.range ? `bytes ${grant.range[0]}–${grant.range[1]}` : 'whole artifact'} · this window only</span>
      <span className="muted">reason: {grant.reason || '—'}</span>
      <span className="expiry" data-testid="grant-expiry">expires in <span className="mono">{countdown(left)}</span></span>
      <button type="button" onClick={() => void revokeRaw()}>Revoke</button>
    </div>
  );
}
