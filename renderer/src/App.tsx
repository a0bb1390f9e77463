import { useLayoutEffect } from 'react';
import { useArtifact, useRequests, useView } from './stores';
import { useFollow } from './stores/follow';
import { FollowView } from './views/FollowView';
import { RequestsView } from './views/RequestsView';
import { VaultBrowser } from './views/VaultBrowser';
import { Workspace } from './views/Workspace';

export function App() {
  const open = useArtifact((a) => a.artifact !== null);
  const theme = useView((v) => v.theme);
  const requests = useRequests((r) => r.open);
  const following = useFollow((f) => f.open !== null);
  // <html> carries the theme: every view (and the body's own background) is under it and the
  // style sheet's [data-theme] blocks select it. A layout effect, so the attribute is set before
  // any passive effect reads the variables (the minimap draws its canvas from them).
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return (
    <div className="app" onDragStart={(e) => e.preventDefault()}>
      {open ? <Workspace /> : following ? <FollowView /> : requests ? <RequestsView /> : <VaultBrowser />}
    </div>
  );
}
