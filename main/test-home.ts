/**
 * Vitest's setup file (vitest.config.ts, both projects): every test file runs with a home
 * of its own. Before the file is imported, HOME and every XDG_* folder point into a fresh
 * temp folder, and the variables that would lead a program back into the person's own
 * folders (an agent's config folder, zsh's, a pane's service) are taken out, so a test
 * that installs a Tick, an agent's hooks or runs an agent CLI (which registers URL
 * handlers in mimeapps.list) writes only there. After the file, the environment is put
 * back and the folder removed.
 *
 * What still points at the person's home on purpose, read-only in practice: npm's cache
 * (so anything run through npm works offline) and Playwright's own Chromium.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { homeEnv, LEAKING, personDotfiles } from './panes/testing.ts';

const saved = { ...process.env };
const realHome = os.homedir();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'td-test-home-'));
Object.assign(process.env, homeEnv(root));
personDotfiles(process.env.HOME!, '$ ');
for (const k of LEAKING) delete process.env[k];
process.env.npm_config_cache ??= saved.npm_config_cache ?? path.join(realHome, '.npm');
if (process.platform !== 'win32') process.env.PLAYWRIGHT_BROWSERS_PATH ??= path.join(realHome, ...(process.platform === 'darwin' ? ['Library', 'Caches'] : ['.cache']), 'ms-playwright');

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});
