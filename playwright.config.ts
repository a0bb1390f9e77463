// Playwright runs Debian Chromium through e2e/harness.ts (never `playwright install`); the
// _electron spec runs only where an Electron binary exists. Screenshots: test-results/screenshots/.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  testMatch: /.*\.spec\.ts$/,
  outputDir: 'test-results/playwright',
  timeout: 90_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['line']] : [['list']],
});
