import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

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
  return spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(root, 'main', 'cli', 'main.ts'), 'hooks', ...args], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir }, encoding: 'utf8', timeout: 30_000,
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

it('passes the script\'s refusal and exit code on; an unknown agent is refused', () => {
  const r = cli('--bogus');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/unknown option "--bogus"/);
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
