/**
 * The tests leave the person's own folders alone (main/test-home.ts). A sentinel home, with
 * every XDG_* folder and the agents' config variables inside it, holds what a person has
 * (a Tick installed by the README's `tick install counter`, a mimeapps.list, an OpenCode
 * config); then the suite's tests that install Ticks and Skills, agents' hooks and the
 * OpenCode plugin, and run the real Claude Code and OpenCode (which register URL handlers
 * in mimeapps.list) run with that environment, and must pass with the sentinel unchanged,
 * byte for byte.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { homeEnv, tree } from './panes/testing.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

let sentinel: string;
beforeAll(() => {
  sentinel = fs.mkdtempSync(path.join(os.tmpdir(), 'td-sentinel-'));
});
afterAll(() => fs.rmSync(sentinel, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

it('the tests that install Ticks, hooks and plugins and run agent CLIs leave HOME and XDG_* as they were, and pass when the person has installed counter', () => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...homeEnv(sentinel),
    CODEX_HOME: path.join(sentinel, 'home', '.codex'),
    CLAUDE_CONFIG_DIR: path.join(sentinel, 'home', '.claude'),
    TD_NODE: process.execPath,
  };
  env.NO_COLOR = '1';
  delete env.FORCE_COLOR;
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV') delete env[k];
  const home = env.HOME!;
  // What a person has: the README's `tick install counter`, a URL handler of their own, an OpenCode config.
  const installed = spawnSync(path.join(ROOT, 'bin', 'terminal-delight'), ['tick', 'install', 'counter'], { cwd: home, env, encoding: 'utf8' });
  expect(installed.status, installed.stderr).toBe(0);
  expect(fs.existsSync(path.join(env.XDG_DATA_HOME!, 'terminal-delight', 'ticks', 'counter', 'SKILL.md'))).toBe(true);
  fs.writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'mimeapps.list'), '[Default Applications]\nx-scheme-handler/https=firefox.desktop\n');
  fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'opencode'));
  fs.writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'), '{"theme": "mine"}\n');
  const before = tree(sentinel);

  const files = [
    'main/tick/cli.test.ts', // `tick check counter` must find the sample, not the person's copy
    'main/tick-packages/cli.test.ts', // tick install / list / uninstall
    'main/tick-packages/claude.test.ts', // the real Claude Code, which registers claude-cli in mimeapps.list
    'main/agent-channel/cli.test.ts', // hooks for every agent, the OpenCode plugin
    'scripts/install-agent-hooks.test.ts',
  ];
  const run = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'unit', ...files], { cwd: ROOT, env, encoding: 'utf8', timeout: 400_000 });
  expect(run.status, `${run.stdout}\n${run.stderr}`.slice(-6000)).toBe(0);
  expect(run.stdout).toMatch(new RegExp(`Test Files\\s+${files.length} passed`));
  // The runner (not a test) keeps a token in $XDG_DATA_HOME/vitest.
  expect(tree(sentinel, [path.join('home', '.local', 'share', 'vitest')])).toEqual(before);
}, 450_000);
