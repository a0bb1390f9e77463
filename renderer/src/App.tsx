import { useLayoutEffect } from 'react';
import { useArtifact, useView } from './stores';
import { VaultBrowser } from './views/VaultBrowser';
import { Workspace } from './views/Workspace';

export function App() {
  const open = useArtifact((a) => a.artifact !== null);
  const theme = useView((v) => v.theme);
  // <html> carries the theme: every view (and the body's own background) is under it and the
  // style sheet's [data-theme] blocks select it. A layout effect, so the attribute is set before
  // any passive effect reads the variables (the minimap draws its canvas from them).
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return (
    <div className="app" onDragStart={(e) => e.preventDefault()}>
      {open ? <Workspace /> : <VaultBrowser />}
    </div>
  );
}
