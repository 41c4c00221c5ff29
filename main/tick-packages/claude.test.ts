/**
 * The real Claude Code (2.1.328, from npm) in a real pane lists the Skills `tick install`
 * put where it reads them: a user package and a project package. Its /skills list is a
 * local screen, so no login and no network are needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../core.ts';
import { PaneService } from '../panes/service.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { statePaths } from '../paths.ts';
import { install } from './install.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude');

let state: ReturnType<typeof tempState>;
let panes: PaneService;

beforeEach(() => {
  state = tempState('td-claude-skills-');
});
afterEach(() => {
  panes?.dispose();
  state.cleanup();
});

describe('Claude Code reads the installed Skills', () => {
  it('lists a user package\'s Skill and a project package\'s in /skills', async () => {
    const home = state.env.HOME!;
    const project = path.join(state.dir, 'project');
    fs.mkdirSync(project);
    expect(install('counter', { env: state.env, cwd: state.dir }).ok).toBe(true);
    expect(install('note', { env: state.env, cwd: state.dir, project }).ok).toBe(true);
    // A person who has used Claude Code before and trusts this folder (no first-run screens).
    fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [project]: { hasTrustDialogAccepted: true } } }));
    const env: NodeJS.ProcessEnv = { ...state.env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']) delete env[k];
    panes = new PaneService({ core: new Core(), paths: statePaths(env), env, cwd: project });
    const pane = panes.create({ command: [CLAUDE], cwd: project });
    await waitFor(() => /Claude Code v2\.1\.328/.test(panes.screenText(pane.id)) && /❯/.test(panes.screenText(pane.id)), 'Claude Code\'s prompt', 60_000);
    panes.write(pane.id, '/skills');
    await waitFor(() => panes.screenText(pane.id).includes('/skills'), 'the typed command', 20_000);
    panes.write(pane.id, '\r');
    const screen = await waitFor(() => {
      const s = panes.screenText(pane.id);
      return /\bcounter\s+user\b/.test(s) && /\bnote\s+project\b/.test(s) ? s : undefined;
    }, 'counter (user) and note (project) in the /skills list', 30_000);
    expect(screen).toMatch(/Skills\s+2 skills/);
    panes.write(pane.id, '\x1b');
  }, 120_000);
});
