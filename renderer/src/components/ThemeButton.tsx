import { useView } from '../stores/view';

/** Switches between the dark and the light theme (every view has one). */
export function ThemeButton() {
  const theme = useView((v) => v.theme);
  return (
    <button type="button" className="theme" aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`} onClick={() => useView.setState({ theme: theme === 'dark' ? 'light' : 'dark' })}>
      {theme === 'dark' ? '☀' : '☾'}
    </button>
  );
}
