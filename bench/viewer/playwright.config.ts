// Playwright config of the viewer benchmark's UI part (bench/viewer/run.mjs starts it).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: /viewer\.bench\.ts$/,
  outputDir: '../../test-results/bench-viewer',
  timeout: 10 * 60_000,
  workers: 1,
  retries: 0,
  reporter: [['line']],
});
