import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tree } from '../panes/testing.ts';
import { NO_AGENT } from './cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir: string;
let bin: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-hooks-cli-'));
  // a PATH with node and sh but no agent on it, unless a test puts one there
  bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  return cliWith({}, ...args);
}
function cliWith(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(root, 'main', 'cli', 'main.ts'), 'hooks', ...args], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, ...env }, encoding: 'utf8', timeout: 30_000,
  });
}

it('terminal-delight hooks installs and uninstalls Claude Code\'s hooks through the script', () => {
  const settings = path.join(dir, 'settings.json');
  fs.writeFileSync(settings, '{"model": "opus"}\n');
  const on = cli('--agent', 'claude', '--settings', settings, '--no-mcp');
  expect(on.status, on.stderr).toBe(0);
  expect(on.stdout).toContain('installed the hooks');
  const hooks = JSON.parse(fs.readFileSync(settings, 'utf8')).hooks;
  expect(hooks.PreToolUse[0].matcher).toBe('AskUserQuestion');
  expect(hooks.PostToolUse[0].matcher).toBe('*');
  const off = cli('--agent', 'claude', '--settings', settings, '--no-mcp', '--uninstall');
  expect(off.status).toBe(0);
  expect(fs.readFileSync(settings, 'utf8')).toBe('{"model": "opus"}\n');
});

it('passes the script\'s refusal and exit code on; an unknown agent or option is refused', () => {
  const r = cli('--bogus');
  expect(r.status).toBe(2);
  expect(r.stderr.trim()).toBe('terminal-delight hooks: unknown option "--bogus": see --help.');
  const s = cli('--agent', 'claude', '--project', path.join(dir, 'missing'));
  expect(s.status).toBe(2);
  expect(s.stderr).toMatch(/project folder ".*missing" does not exist: give an existing folder; nothing was changed/);
  const t = cli('--agent', 'claude', '--project');
  expect(t.status).toBe(2);
  expect(t.stderr).toMatch(/--project needs a folder/);
  const a = cli('--agent', 'aider');
  expect(a.status).toBe(2);
  expect(a.stderr.trim()).toBe('terminal-delight hooks: "aider" is not an agent this app knows: choose from claude, codex, gemini, opencode or all.');
});

it('Codex and Gemini CLI: merged into their files with --agent in the command, idempotent, uninstalled byte for byte', () => {
  const codex = path.join(dir, '.codex', 'hooks.json');
  const gemini = path.join(dir, '.gemini', 'settings.json');
  fs.mkdirSync(path.dirname(gemini), { recursive: true });
  const original = '{\n\t"theme": "Dracula",\n\t"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}\n}';
  fs.writeFileSync(gemini, original);
  const on = cli('--agent', 'codex,gemini');
  expect(on.status, on.stderr).toBe(0);
  expect(on.stdout).toContain('Codex asks you to trust these hooks the next time it starts');
  const c = JSON.parse(fs.readFileSync(codex, 'utf8'));
  expect(Object.keys(c.hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PermissionRequest', 'PostToolUse', 'Stop']);
  expect(c.hooks.PermissionRequest[0].hooks[0]).toEqual({ type: 'command', command: `sh '${path.join(root, 'scripts', 'hooks', 'tdac-hook.sh')}' --agent codex`, timeout: 600 });
  const g = JSON.parse(fs.readFileSync(gemini, 'utf8'));
  expect(g.theme).toBe('Dracula');
  expect(g.hooks.SessionStart).toHaveLength(2);
  expect(g.hooks.Notification[0].hooks[0]).toMatchObject({ command: expect.stringMatching(/--agent gemini$/), timeout: 10_000 });
  expect(Object.keys(g.hooks)).toEqual(['SessionStart', 'BeforeAgent', 'AfterAgent', 'AfterTool', 'Notification']);
  expect(fs.readFileSync(gemini, 'utf8')).toContain('\n\t"theme"');
  const again = cli('--agent', 'codex,gemini');
  expect(again.stdout).toMatch(/already installed; nothing changed[\s\S]*already installed; nothing changed/);
  const off = cli('--agent', 'codex,gemini', '--uninstall');
  expect(off.status, off.stderr).toBe(0);
  expect(fs.existsSync(codex)).toBe(false);
  expect(fs.readFileSync(gemini, 'utf8')).toBe(original);
});

it('OpenCode: a plugin file naming this app\'s hook; idempotent; someone else\'s file is left alone', () => {
  const plugin = path.join(dir, '.config', 'opencode', 'plugin', 'terminal-delight.js');
  expect(cli('--agent', 'opencode').status).toBe(0);
  const text = fs.readFileSync(plugin, 'utf8');
  expect(text).toContain(JSON.stringify(path.join(root, 'scripts', 'hooks', 'tdac-hook.sh')));
  expect(text).not.toContain('@@HOOK@@');
  expect(cli('--agent', 'opencode').stdout).toMatch(/already installed/);
  expect(cli('--agent', 'opencode', '--uninstall').status).toBe(0);
  expect(fs.existsSync(plugin)).toBe(false);
  // The folders the install made go with it.
  expect(fs.existsSync(path.join(dir, '.config'))).toBe(false);
  fs.mkdirSync(path.dirname(plugin), { recursive: true });
  fs.writeFileSync(plugin, 'export const Mine = async () => ({});\n');
  const r = cli('--agent', 'opencode');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/is not Terminal Delight's plugin: move it aside/);
  expect(fs.readFileSync(plugin, 'utf8')).toBe('export const Mine = async () => ({});\n');
});

it('with no --agent: the agents found on PATH', () => {
  fs.writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\n', { mode: 0o755 });
  const r = cli();
  expect(r.status, r.stderr).toBe(0);
  expect(fs.existsSync(path.join(dir, '.codex', 'hooks.json'))).toBe(true);
  expect(fs.existsSync(path.join(dir, '.claude', 'settings.json'))).toBe(false);
  expect(cli('--project', dir).stderr).toMatch(/--project is an option for Claude Code's hooks: add --agent claude/);
});

/** A stand-in for an agent the person installed: an executable of that name on PATH. */
const onPath = (name: string) => fs.writeFileSync(path.join(bin, name), '#!/bin/sh\n', { mode: 0o755 });

it('with no agent on PATH and none named: changes nothing and says how to name one', () => {
  const before = tree(dir);
  for (const args of [[], ['--no-mcp']]) {
    const r = cli(...args);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(NO_AGENT);
    expect(r.stdout).toBe('');
  }
  expect(NO_AGENT).toBe('terminal-delight hooks: no agent was found on your PATH (claude, codex, gemini, opencode), so nothing was changed: name the one to install for with --agent, like --agent claude.');
  expect(tree(dir)).toEqual(before);
  const off = cli('--uninstall');
  expect(off.status).toBe(0);
  expect(off.stdout.trim()).toMatch(/^terminal-delight hooks: nothing to take out: no install is recorded in .*hooks-installed\.json and no agent is on your PATH; to take one out all the same, name it with --agent, like --agent claude --uninstall\.$/);
  expect(tree(dir)).toEqual(before);
});

it('--uninstall takes out everything it ever installed, per its record, though the agents are no longer on PATH or their folders have moved: the files come back byte for byte', () => {
  // What the person has: Claude Code and Gemini CLI settings of their own, Claude Code's state file.
  fs.mkdirSync(path.join(dir, '.claude'));
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{\n    "model": "opus"\n}\n');
  fs.writeFileSync(path.join(dir, '.claude.json'), '{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}', { mode: 0o600 });
  fs.mkdirSync(path.join(dir, '.gemini'));
  fs.writeFileSync(path.join(dir, '.gemini', 'settings.json'), '{\r\n\t"theme": "Dracula"\r\n}\r\n');
  const project = path.join(dir, 'project');
  fs.mkdirSync(project);
  const before = tree(dir, ['bin']);
  for (const name of ['claude', 'codex', 'gemini', 'opencode']) onPath(name);
  const codexHome = path.join(dir, 'codex-home');
  const on = cliWith({ CODEX_HOME: codexHome });
  expect(on.status, on.stderr).toBe(0);
  const claudeProject = cli('--agent', 'claude', '--project', project);
  expect(claudeProject.status, claudeProject.stderr).toBe(0);
  const record = path.join(dir, '.local', 'state', 'terminal-delight', 'hooks-installed.json');
  const entries = JSON.parse(fs.readFileSync(record, 'utf8')).entries;
  expect(entries).toEqual([
    { agent: 'claude', part: 'hooks', file: path.join(dir, '.claude', 'settings.json') },
    { agent: 'claude', part: 'mcp', file: path.join(dir, '.claude.json') },
    { agent: 'codex', part: 'hooks', file: path.join(codexHome, 'hooks.json') },
    { agent: 'gemini', part: 'hooks', file: path.join(dir, '.gemini', 'settings.json') },
    { agent: 'opencode', part: 'plugin', file: path.join(dir, '.config', 'opencode', 'plugin', 'terminal-delight.js'), made: path.join(dir, '.config') },
    { agent: 'claude', part: 'hooks', file: path.join(project, '.claude', 'settings.json') },
    { agent: 'claude', part: 'mcp', file: path.join(project, '.mcp.json') },
  ]);
  expect(fs.statSync(record).mode & 0o777).toBe(0o600);
  for (const e of entries) expect(fs.readFileSync(e.file, 'utf8')).toMatch(/tdac-hook\.sh|terminal-delight/);
  // The agents go from PATH, and CODEX_HOME is no longer set.
  for (const name of ['claude', 'codex', 'gemini', 'opencode']) fs.rmSync(path.join(bin, name));
  const off = cli('--uninstall');
  expect(off.status, off.stderr).toBe(0);
  expect(off.stdout).toMatch(/settings\.json: took out the hooks; the file is back as it was/);
  expect(fs.existsSync(record)).toBe(false);
  expect(tree(dir, ['bin', '.local'])).toEqual(before);
  expect(fs.readFileSync(path.join(dir, '.gemini', 'settings.json'), 'utf8')).toBe('{\r\n\t"theme": "Dracula"\r\n}\r\n');
  expect(cli('--uninstall').stdout).toMatch(/nothing to take out/);
});

it('--uninstall --agent takes out only that agent\'s recorded files, and --no-mcp keeps Claude Code\'s MCP server', () => {
  for (const name of ['claude', 'gemini']) onPath(name);
  expect(cli().status).toBe(0);
  fs.rmSync(path.join(bin, 'gemini'));
  expect(cli('--agent', 'gemini', '--uninstall').status).toBe(0);
  expect(fs.existsSync(path.join(dir, '.gemini', 'settings.json'))).toBe(false);
  expect(fs.existsSync(path.join(dir, '.claude', 'settings.json'))).toBe(true);
  const r = cli('--agent', 'claude', '--no-mcp', '--uninstall');
  expect(r.status, r.stderr).toBe(0);
  expect(fs.existsSync(path.join(dir, '.claude', 'settings.json'))).toBe(false);
  expect(JSON.parse(fs.readFileSync(path.join(dir, '.claude.json'), 'utf8')).mcpServers['terminal-delight']).toMatchObject({ args: ['mcp'] });
  const record = JSON.parse(fs.readFileSync(path.join(dir, '.local', 'state', 'terminal-delight', 'hooks-installed.json'), 'utf8'));
  expect(record.entries).toEqual([{ agent: 'claude', part: 'mcp', file: path.join(dir, '.claude.json') }]);
  expect(cli('--uninstall').status).toBe(0);
  expect(fs.existsSync(path.join(dir, '.claude.json'))).toBe(false);
});
