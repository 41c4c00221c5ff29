import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-hooks-cli-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(root, 'main', 'cli', 'main.ts'), 'hooks', ...args], {
    env: { PATH: process.env.PATH, HOME: dir }, encoding: 'utf8', timeout: 30_000,
  });
}

it('terminal-delight hooks installs and uninstalls through the script', () => {
  const settings = path.join(dir, 'settings.json');
  fs.writeFileSync(settings, '{"model": "opus"}\n');
  const on = cli('--settings', settings, '--no-mcp');
  expect(on.status, on.stderr).toBe(0);
  expect(on.stdout).toContain('installed the hooks');
  expect(JSON.parse(fs.readFileSync(settings, 'utf8')).hooks.PreToolUse[0].matcher).toBe('AskUserQuestion');
  const off = cli('--settings', settings, '--no-mcp', '--uninstall');
  expect(off.status).toBe(0);
  expect(fs.readFileSync(settings, 'utf8')).toBe('{"model": "opus"}\n');
});

it('passes the script\'s refusal and exit code on', () => {
  const r = cli('--bogus');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/unknown option "--bogus"/);
});
