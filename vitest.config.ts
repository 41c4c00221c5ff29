import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['main/**/*.test.ts', 'preload/**/*.test.ts', 'common/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts', 'assets/**/*.test.ts'],
          environment: 'node',
          // A home and XDG_* folders of its own for every test file (main/test-home.ts).
          setupFiles: ['main/test-home.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          // No browser: fail once, here, with one sentence (scripts/find-browser.mjs).
          globalSetup: ['e2e/global-setup.ts'],
          setupFiles: ['main/test-home.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // expect.poll waits on a browser, a service worker or a PTY: vitest's 1 s default is
          // missed on a busy CI machine (a passing poll returns as soon as it holds).
          expect: { poll: { timeout: 15_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
