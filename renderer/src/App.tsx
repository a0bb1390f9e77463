import { useEffect } from 'react';
import { useArtifact, useView } from './stores';
import { VaultBrowser } from './views/VaultBrowser';
import { Workspace } from './views/Workspace';

export function App() {
  const open = useArtifact((a) => a.artifact !== null);
  const theme = useView((v) => v.theme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return (
    <div className="app" onDragStart={(e) => e.preventDefault()}>
      {open ? <Workspace /> : <VaultBrowser />}
    </div>
  );
}
