import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, helpText } from './main.ts';

const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'terminal-delight');
const run = (...args: string[]) => spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, TD_NODE: process.execPath } });

describe('terminal-delight', () => {
  it('prints every subcommand with one line each for help', () => {
    const r = run('help');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(helpText());
    for (const [name, c] of [['help', {}], ['version', {}], ...Object.entries(COMMANDS)] as const) {
      // What the app runs itself (the bridge ssh starts for a machine) is left out of the list.
      if ((c as { hidden?: boolean }).hidden) expect(r.stdout).not.toMatch(new RegExp(`^  ${name} `, 'm'));
      else expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    }
    expect(Object.entries(COMMANDS).filter(([, c]) => c.hidden).map(([n]) => n)).toEqual(['bridge']);
    expect(run().stdout).toBe(helpText());
  });

  it('refuses an unknown subcommand in one sentence with exit 2', () => {
    const r = run('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('terminal-delight: "frobnicate" is not a command: run `terminal-delight help` to see them all.\n');
  });

  it('runs through a symlink to the script', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-cli-'));
    try {
      fs.symlinkSync(bin, path.join(dir, 'td'));
      const r = spawnSync(path.join(dir, 'td'), ['help'], { encoding: 'utf8', env: { ...process.env, TD_NODE: process.execPath } });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Usage: terminal-delight');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Files under dir (relative paths), folders left out. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => !fs.statSync(path.join(dir, f)).isDirectory()).sort();
}

describe('terminal-delight --help and --version', () => {
  it('prints the version for --version, -V and version', () => {
    const version = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).version;
    for (const arg of ['--version', '-V', 'version']) {
      const r = run(arg);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`terminal-delight ${version}\n`);
      expect(r.stderr).toBe('');
    }
    // Outside a pane, as the README says: npx from the checkout (never fetching a package of that name).
    const root = path.resolve(import.meta.dirname, '..', '..');
    const npx = spawnSync('npx', ['--no-install', 'terminal-delight', '--version'], { cwd: root, encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` }, timeout: 60_000 });
    expect(npx.stdout).toBe(`terminal-delight ${version}\n`);
  }, 90_000);

  it('every command the help lists, and every subcommand each lists, answers --help with its usage and exit 0, and changes nothing', () => {
    // A home and state of its own, empty: --help must start no service and write nothing.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-cli-help-'));
    const home = path.join(dir, 'home');
    fs.mkdirSync(home);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, TD_NODE: process.execPath, HOME: home,
      XDG_STATE_HOME: path.join(dir, 'state'), XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data'),
      XDG_CACHE_HOME: path.join(dir, 'cache'), XDG_RUNTIME_DIR: path.join(dir, 'runtime'), TD_SOCKET: path.join(dir, 'state', 'td.sock'),
    };
    const td = (...args: string[]) => spawnSync(bin, args, { encoding: 'utf8', env, cwd: home, timeout: 60_000 });
    try {
      const listed = [...td('help').stdout.matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]!);
      const hidden = Object.entries(COMMANDS).filter(([, c]) => c.hidden).map(([n]) => n);
      expect(listed).toEqual(['help', 'version', ...Object.keys(COMMANDS).filter((n) => !hidden.includes(n))]);
      const subcommands: Record<string, string[]> = {};
      // What the help leaves out (the bridge ssh runs) answers --help too.
      for (const name of [...listed, ...hidden]) {
        const r = td(name, '--help');
        expect({ name, status: r.status, stderr: r.stderr }).toEqual({ name, status: 0, stderr: '' });
        if (name === 'version') {
          expect(r.stdout).toMatch(/^terminal-delight \d+\.\d+\.\d+\n$/);
          continue;
        }
        expect(r.stdout).toMatch(/^usage:? /i);
        if (name !== 'help') expect(td('help', name).stdout).toBe(r.stdout);
        // The subcommands its usage names: `terminal-delight NAME sub|sub …`.
        const subs = [...r.stdout.matchAll(new RegExp(`terminal-delight ${name} ([a-z][a-z|]*)`, 'g'))].flatMap((m) => m[1]!.split('|'));
        if (subs.length > 0) subcommands[name] = [...new Set(subs)];
      }
      expect(subcommands).toEqual({ tick: ['check', 'install', 'list'], agent: ['new'], devices: ['on', 'off', 'list', 'pair', 'revoke'], service: ['status', 'start', 'stop', 'restart'] });
      for (const [name, subs] of Object.entries(subcommands)) {
        for (const sub of subs) {
          const r = td(name, sub, '--help');
          expect({ name, sub, status: r.status, stderr: r.stderr }).toEqual({ name, sub, status: 0, stderr: '' });
          expect(r.stdout).toMatch(new RegExp(`^usage:? .*terminal-delight ${name}`, 'is'));
        }
      }
      // Nothing was installed, started or saved.
      expect(filesUnder(dir)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
