// The dev page: the real renderer with the fake bridge, built to dist/renderer-dev/ for
// screenshots before the e2e harness exists. Not part of the production build.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/renderer-dev', import.meta.url)),
    emptyOutDir: true,
    target: 'chrome130',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: { fs: { allow: [fileURLToPath(new URL('../..', import.meta.url))] } },
});
