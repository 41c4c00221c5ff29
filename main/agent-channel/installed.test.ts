/**
 * "+ Agent" offers only the agents the person installed: this app's own node_modules/.bin
 * holds the pinned agent CLIs (devDependencies), and npm puts it on PATH when it runs us;
 * those copies never count, and the panes' shells do not get that entry either. A real app
 * with a real PATH: the project's node_modules/.bin (which holds claude, codex, gemini and
 * opencode) first, then a folder with the person's own `claude`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AvailableAgent, PaneInfo } from '../../preload/contract.ts';
import { type App, createApp } from '../app.ts';
import { appRoot } from '../panes/env.ts';
import { tempState, waitFor } from '../panes/testing.ts';

const PROJECT_BIN = path.join(appRoot, 'node_modules', '.bin');
const client = { id: 'window' };

let app: App | undefined;
let state: ReturnType<typeof tempState> | undefined;
afterEach(async () => {
  await app?.dispose();
  app = undefined;
  state?.cleanup();
});

/** A real app whose environment's PATH is `path(own)`, `own` a folder holding the person's own `claude`. */
async function start(pathOf: (own: string) => string[], extra: NodeJS.ProcessEnv = {}): Promise<{ app: App; own: string }> {
  state = tempState('td-installed-');
  const own = path.join(state.dir, 'own-bin');
  fs.mkdirSync(own);
  fs.writeFileSync(path.join(own, 'claude'), '#!/bin/sh\necho "the person\'s claude $*"\n', { mode: 0o755 });
  app = await createApp({ shell: 'serve', env: { ...state.env, ...extra, PATH: pathOf(own).join(':') }, cwd: state.dir, fresh: true });
  return { app, own };
}

/** The agents "+ Agent" offers as installed, with where it found each. */
const installed = async (a: App) => ((await a.core.request('agent.available', {}, client)) as AvailableAgent[]).filter((x) => x.installed).map((x) => `${x.name} ${x.path}`);

it('offers the person\'s own claude, not the project\'s copies ahead of it on PATH, and the pane\'s shell finds the same', async () => {
  for (const name of ['claude', 'codex', 'gemini', 'opencode']) expect(fs.existsSync(path.join(PROJECT_BIN, name)), `${name} in node_modules/.bin`).toBe(true);
  const { app: a, own } = await start((own) => [PROJECT_BIN, own, '/usr/bin', '/bin']);
  expect(await installed(a)).toEqual([`claude ${path.join(own, 'claude')}`]);
  const pane = (await a.core.request('pane.create', { command: ['/bin/sh', '-c', 'command -v claude; command -v codex || echo no-codex; echo "PATH=$PATH"; exec sleep 60'] }, client)) as PaneInfo;
  const screen = await waitFor(() => {
    const s = a.panes.screenText(pane.id);
    return /^PATH=/m.test(s) ? s : undefined;
  }, 'the pane\'s answers');
  expect(screen).toContain(`${path.join(own, 'claude')}\n`);
  expect(screen).toMatch(/^no-codex$/m);
  expect(screen).not.toContain(PROJECT_BIN);
});

it('with only the project\'s copies on PATH, no agent is installed', async () => {
  const { app: a } = await start(() => ['/usr/bin', PROJECT_BIN, '/bin']);
  expect(await installed(a)).toEqual([]);
});

it('run by npm (npm_config_*), the node_modules/.bin entries npm put first do not count, wherever they are; the person\'s later ones do', async () => {
  const { app: a, own } = await start((own) => {
    // npm start from a project elsewhere puts its node_modules/.bin, each one up the tree, and node-gyp-bin first.
    const other = path.join(path.dirname(own), 'other', 'node_modules', '.bin');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'codex'), '#!/bin/sh\n', { mode: 0o755 });
    const mine = path.join(path.dirname(own), 'mine', 'node_modules', '.bin');
    fs.mkdirSync(mine, { recursive: true });
    fs.writeFileSync(path.join(mine, 'gemini'), '#!/bin/sh\n', { mode: 0o755 });
    return [other, path.join(path.dirname(own), 'node_modules', '.bin'), '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin', own, mine, '/usr/bin', '/bin'];
  }, { npm_config_user_agent: 'npm/11.0.0 node/v24.0.0 linux x64', npm_lifecycle_event: 'start' });
  expect(await installed(a)).toEqual([`claude ${path.join(own, 'claude')}`, `gemini ${path.join(path.dirname(own), 'mine', 'node_modules', '.bin', 'gemini')}`]);
});

it('an installed agent without its hooks says so, and no more once `terminal-delight hooks` installed them; again once they are taken out', async () => {
  const { app: a, own } = await start((own) => [own, '/usr/bin', '/bin']);
  const hooksOf = async () => ((await a.core.request('agent.available', {}, client)) as AvailableAgent[]).map((x) => `${x.name} ${x.installed ? x.hooks : 'not installed'}`);
  expect(await hooksOf()).toEqual(['claude false', 'codex not installed', 'gemini not installed', 'opencode not installed']);
  // The real command, as a person runs it in a pane (node first on its PATH, the app's state folder and HOME).
  fs.symlinkSync(process.execPath, path.join(own, 'node'));
  const hooks = (...args: string[]) => spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(appRoot, 'main', 'cli', 'main.ts'), 'hooks', ...args], {
    env: { ...state!.env, PATH: `${own}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 30_000,
  });
  const on = hooks('--agent', 'claude', '--no-mcp');
  expect(on.status, on.stderr).toBe(0);
  expect(await hooksOf()).toEqual(['claude true', 'codex not installed', 'gemini not installed', 'opencode not installed']);
  const off = hooks('--agent', 'claude', '--uninstall');
  expect(off.status, off.stderr).toBe(0);
  expect(await hooksOf()).toEqual(['claude false', 'codex not installed', 'gemini not installed', 'opencode not installed']);
  // Installed by running the script by hand (no record kept): its settings file names the hook.
  const byHand = spawnSync('sh', [path.join(appRoot, 'scripts', 'install-agent-hooks.sh'), '--no-mcp'], { env: { ...state!.env, PATH: `${own}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 30_000 });
  expect(byHand.status, byHand.stderr).toBe(0);
  expect(fs.existsSync(path.join(state!.dir, 'state', 'terminal-delight', 'hooks-installed.json'))).toBe(false);
  expect(await hooksOf()).toEqual(['claude true', 'codex not installed', 'gemini not installed', 'opencode not installed']);
});

it('hooks installed in a project (`hooks --project DIR`) count for an agent started in that folder only, as do the hooks a folder keeps in its own .claude settings', async () => {
  const { app: a, own } = await start((own) => [own, '/usr/bin', '/bin']);
  fs.symlinkSync(process.execPath, path.join(own, 'node'));
  const env = { ...state!.env, PATH: `${own}:/usr/bin:/bin` };
  const project = path.join(state!.dir, 'project');
  const other = path.join(state!.dir, 'other');
  const kept = path.join(state!.dir, 'kept');
  for (const d of [project, other, kept]) fs.mkdirSync(d);
  const pane = async (cwd: string) => ((await a.core.request('pane.create', { cwd, command: ['/bin/sh', '-c', 'exec sleep 60'] }, client)) as PaneInfo).id;
  const inProject = await pane(project);
  const inOther = await pane(other);
  const inKept = await pane(kept);
  const claudeHooks = async (splitOf?: string) => ((await a.core.request('agent.available', splitOf ? { splitOf } : {}, client)) as AvailableAgent[]).find((x) => x.name === 'claude')!.hooks;
  const on = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(appRoot, 'main', 'cli', 'main.ts'), 'hooks', '--agent', 'claude', '--project', project, '--no-mcp'], { env, encoding: 'utf8', timeout: 30_000 });
  expect(on.status, on.stderr).toBe(0);
  expect(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')).toContain('tdac-hook.sh');
  expect(await claudeHooks(inProject)).toBe(true);
  expect(await claudeHooks(inOther)).toBe(false);
  expect(await claudeHooks()).toBe(false);
  // A folder whose own .claude settings name the hook (installed by hand: no record kept).
  const byHand = spawnSync('sh', [path.join(appRoot, 'scripts', 'install-agent-hooks.sh'), '--project', kept, '--no-mcp'], { env, encoding: 'utf8', timeout: 30_000 });
  expect(byHand.status, byHand.stderr).toBe(0);
  expect(await claudeHooks(inKept)).toBe(true);
  expect(await claudeHooks(inOther)).toBe(false);
});
