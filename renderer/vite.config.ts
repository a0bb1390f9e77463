// Builds the renderer to dist/renderer/ with relative asset paths, one JS and one CSS file, and
// nothing inline, so the app's strict CSP (script-src 'self'; style-src 'self') holds.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'chrome130',
    sourcemap: false,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    cssCodeSplit: false,
  },
  server: { fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] } },
});
