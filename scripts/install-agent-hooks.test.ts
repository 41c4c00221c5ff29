/**
 * scripts/install-agent-hooks.sh against the sample settings files in assets/claude/settings:
 * merge, idempotence, uninstall restoring the original byte for byte, odd files.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const script = path.join(root, 'scripts', 'install-agent-hooks.sh');
const samples = path.join(root, 'assets', 'claude', 'settings');
const hookCommand = `sh '${path.join(root, 'scripts', 'hooks', 'tdac-hook.sh')}'`;

let home: string;
beforeEach(() => { home = fs.mkdtempSync(path.join(os.tmpdir(), 'td-install-')); });
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function run(...args: string[]) {
  const r = spawnSync('sh', [script, ...args], { env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const put = (sample: string, to: string) => {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(samples, sample), to);
  return fs.readFileSync(to);
};
const json = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const listDir = (dir: string) => fs.readdirSync(dir).sort();
/** Every file under a folder with its bytes, to prove a run changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) {
      const p = path.join(e.parentPath, e.name);
      out[path.relative(dir, p)] = `${fs.statSync(p).mtimeMs}:${fs.readFileSync(p, 'base64')}`;
    }
  }
  return out;
}

describe('install into the user settings', () => {
  it('merges: keeps the user\'s own hooks and settings, adds ours with an explicit question timeout, keeps a backup', () => {
    const settings = path.join(home, '.claude', 'settings.json');
    const config = path.join(home, '.claude.json');
    const original = put('user-settings.json', settings);
    put('claude-user-config.json', config);
    const r = run();
    expect(r.code, r.err).toBe(0);
    const s = json(settings);
    const before = JSON.parse(original.toString());
    expect(s.model).toBe('opus');
    expect(s.permissions).toEqual(before.permissions);
    expect(s.statusLine).toEqual(before.statusLine);
    expect(s.hooks.PreToolUse).toEqual([
      before.hooks.PreToolUse[0],
      { matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: hookCommand, timeout: 600 }] },
    ]);
    expect(s.hooks.Stop).toEqual([before.hooks.Stop[0], { hooks: [{ type: 'command', command: hookCommand, timeout: 10 }] }]);
    expect(s.hooks.PermissionRequest).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: hookCommand, timeout: 600 }] }]);
    expect(Object.keys(s.hooks).sort()).toEqual(['PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PreToolUse', 'SessionStart', 'Stop', 'UserPromptSubmit']);
    expect(s.hooks.PostToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: hookCommand, timeout: 10 }] }]);
    const backups = listDir(path.join(home, '.claude')).filter((n) => n.startsWith('settings.json.td-backup-'));
    expect(backups).toHaveLength(1);
    expect(fs.readFileSync(path.join(home, '.claude', backups[0]))).toEqual(original);

    const c = json(config);
    expect(c.mcpServers).toEqual({
      context7: { type: 'stdio', command: 'npx', args: ['-y', '@upstash/context7-mcp'], env: {} },
      'terminal-delight': { type: 'stdio', command: path.join(root, 'bin', 'terminal-delight'), args: ['mcp'], env: {} },
    });
    expect(c.projects).toEqual(JSON.parse(fs.readFileSync(path.join(samples, 'claude-user-config.json'), 'utf8')).projects);
  });

  it('is idempotent: a second run changes nothing at all', () => {
    put('user-settings.json', path.join(home, '.claude', 'settings.json'));
    put('claude-user-config.json', path.join(home, '.claude.json'));
    expect(run().code).toBe(0);
    const after = snapshot(home);
    const r = run();
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/already installed; nothing changed/);
    expect(snapshot(home)).toEqual(after);
  });

  it('uninstall restores the originals byte for byte and leaves no trace', () => {
    const settings = path.join(home, '.claude', 'settings.json');
    const config = path.join(home, '.claude.json');
    const s0 = put('user-settings.json', settings);
    const c0 = put('claude-user-config.json', config);
    const files0 = listDir(home);
    expect(run().code).toBe(0);
    const r = run('--uninstall');
    expect(r.code, r.err).toBe(0);
    expect(fs.readFileSync(settings)).toEqual(s0);
    expect(fs.readFileSync(config)).toEqual(c0);
    expect(listDir(home)).toEqual(files0);
    expect(listDir(path.join(home, '.claude'))).toEqual(['settings.json']);
    // uninstalling again is harmless
    expect(run('--uninstall').code).toBe(0);
    expect(fs.readFileSync(settings)).toEqual(s0);
  });

  it('uninstall after the user changed something else takes out only ours and keeps their change', () => {
    const settings = path.join(home, '.claude', 'settings.json');
    put('user-settings.json', settings);
    expect(run('--no-mcp').code).toBe(0);
    const s = json(settings);
    s.model = 'haiku';
    s.hooks.Stop.push({ hooks: [{ type: 'command', command: 'say done' }] });
    fs.writeFileSync(settings, JSON.stringify(s, null, 2));
    expect(run('--uninstall', '--no-mcp').code).toBe(0);
    const after = json(settings);
    const original = JSON.parse(fs.readFileSync(path.join(samples, 'user-settings.json'), 'utf8'));
    expect(after).toEqual({ ...original, model: 'haiku', hooks: { ...original.hooks, Stop: [...original.hooks.Stop, { hooks: [{ type: 'command', command: 'say done' }] }] } });
    expect(JSON.stringify(after)).not.toContain('tdac-hook');
  });

  it('with no settings at all: creates them, and uninstall removes them again', () => {
    expect(run().code).toBe(0);
    expect(json(path.join(home, '.claude', 'settings.json')).hooks.SessionStart).toHaveLength(1);
    expect(run('--uninstall').code).toBe(0);
    expect(fs.existsSync(path.join(home, '.claude', 'settings.json'))).toBe(false);
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);
    expect(listDir(home)).toEqual([]);
  });
});

describe('odd files', () => {
  it('odd formatting (tabs, CRLF, no final newline, escapes) keeps its style, and comes back byte for byte', () => {
    const file = path.join(home, 'odd.json');
    const original = put('odd-formatting.json', file);
    expect(run('--settings', file, '--no-mcp').code).toBe(0);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('\r\n\t"hooks": {');
    expect(text.endsWith('}')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    const s = JSON.parse(text);
    expect(s.name).toBe('café été');
    expect(s.hooks.UserPromptSubmit[0]).toEqual({ hooks: [{ type: 'command', command: 'log-prompt' }] });
    expect(run('--settings', file, '--no-mcp', '--uninstall').code).toBe(0);
    expect(fs.readFileSync(file)).toEqual(original);
  });

  for (const [sample, reason] of [
    ['with-comments.json', /has a comment on line 2: .*take the comments out/],
    ['trailing-comma.json', /is not valid JSON .*fix it/],
    ['not-an-object.json', /holds an array, not a JSON object/],
  ] as const) {
    it(`${sample} is refused clearly and left exactly as it was`, () => {
      const file = path.join(home, '.claude', 'settings.json');
      const original = put(sample, file);
      const config = path.join(home, '.claude.json');
      const before = snapshot(home);
      const r = run();
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(reason);
      expect(r.err).toMatch(/nothing was changed/);
      expect(fs.readFileSync(file)).toEqual(original);
      // nothing else was touched either (the MCP file is checked before any write)
      expect(fs.existsSync(config)).toBe(false);
      expect(snapshot(home)).toEqual(before);
    });
  }

  it('a bad option is refused with what to do', () => {
    const r = run('--frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option "--frobnicate": see --help/);
  });
});

describe('project scope', () => {
  it('writes .claude/settings.json and .mcp.json in the project, and uninstall restores them', () => {
    const project = path.join(home, 'src', 'app');
    fs.mkdirSync(project, { recursive: true });
    const mcp0 = put('project-mcp.json', path.join(project, '.mcp.json'));
    const r = run('--project', project);
    expect(r.code, r.err).toBe(0);
    expect(json(path.join(project, '.claude', 'settings.json')).hooks.PreToolUse[0].hooks[0]).toEqual({ type: 'command', command: hookCommand, timeout: 600 });
    expect(Object.keys(json(path.join(project, '.mcp.json')).mcpServers)).toEqual(['playwright', 'terminal-delight']);
    expect(fs.existsSync(path.join(home, '.claude'))).toBe(false);
    expect(run('--project', project, '--uninstall').code).toBe(0);
    expect(fs.readFileSync(path.join(project, '.mcp.json'))).toEqual(mcp0);
    expect(listDir(project)).toEqual(['.mcp.json']);
  });

  it('a missing project folder is refused', () => {
    const r = run('--project', path.join(home, 'nope'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/does not exist: give an existing folder/);
  });
});
