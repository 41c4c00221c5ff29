#!/usr/bin/env node
// `npm test`: builds the renderer (the e2e tests load it through `serve`), runs every
// test (unit, integration with real PTYs, Playwright end to end in Chromium) with
// Vitest, then prints one plain summary line: `N passed, N failed`.
// Extra arguments go to Vitest (for example `npm test -- main/surfaces`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBrowser } from './find-browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);

const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// No browser: the unit tests still run, and the end-to-end tests count as one failure, said once.
const browser = findBrowser();
const noBrowser = 'error' in browser;
if (noBrowser) console.error(`npm test: ${browser.error} The end-to-end tests were not run.`);

const resultsFile = path.join(root, 'out', 'test-results.json');
fs.rmSync(resultsFile, { force: true });
const run = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...(noBrowser ? ['--project', 'unit'] : []), ...args], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TD_TEST: '1' },
});

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  passed = results.numPassedTests ?? 0;
  // Failed tests, plus files that failed without a failing test (they did not load or run).
  const brokenFiles = (results.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
  failed = (results.numFailedTests ?? 0) + brokenFiles;
  skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
} catch {
  failed = Math.max(failed, 1);
}
if (run.status !== 0 && failed === 0) failed = 1;
if (noBrowser) failed += 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
