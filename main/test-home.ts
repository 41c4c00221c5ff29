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
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** Variables that name a place to write outside HOME and XDG_*, or a running service: unset in tests. */
export const LEAKING = [
  'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME', 'OPENCODE_CONFIG', 'OPENCODE_CONFIG_DIR', 'ZDOTDIR',
  'TD_SOCKET', 'TD_SESSION', 'TD_PANE_ID', 'TD_TAG', 'TD_SERVICE_SOCKET', 'TD_SERVICE_TOKEN_FILE',
];

/** HOME and every XDG_* base folder inside `root` (made, the runtime folder 0700), as environment variables. */
export function homeEnv(root: string): Record<string, string> {
  const home = path.join(root, 'home');
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: path.join(root, 'run'),
  };
  for (const dir of Object.values(env)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return env;
}

/**
 * Every entry under `dir` but those in `leaveOut` (relative paths): its kind, mode and (files)
 * a hash of its bytes, (links) its target; equal trees are the same, byte for byte.
 */
export function tree(dir: string, leaveOut: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const key = path.relative(dir, p);
      if (leaveOut.includes(key)) continue;
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[key] = `link ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[key] = `dir ${(st.mode & 0o7777).toString(8)}`;
        walk(p);
      } else out[key] = `file ${(st.mode & 0o7777).toString(8)} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

const saved = { ...process.env };
const realHome = os.homedir();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'td-test-home-'));
Object.assign(process.env, homeEnv(root));
for (const k of LEAKING) delete process.env[k];
process.env.npm_config_cache ??= saved.npm_config_cache ?? path.join(realHome, '.npm');
if (process.platform !== 'win32') process.env.PLAYWRIGHT_BROWSERS_PATH ??= path.join(realHome, ...(process.platform === 'darwin' ? ['Library', 'Caches'] : ['.cache']), 'ms-playwright');

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});
