/** `terminal-delight tick install` and `tick list` through the real command, in a temp home. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { treeEntries } from './tree.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');

let dir: string;
let home: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-tick-cli-'));
  home = path.join(dir, 'home');
  fs.mkdirSync(home);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function td(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const base = { ...process.env };
    for (const k of ['XDG_DATA_HOME', 'CLAUDE_CONFIG_DIR']) delete base[k];
    const child = spawn(BIN, args, { cwd: dir, env: { ...base, HOME: home, TD_NODE: process.execPath, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('terminal-delight tick install / list', () => {
  it('installs a sample, lists it with its prerequisites, and takes it out again byte for byte', async () => {
    const before = treeEntries(home);
    const empty = await td(['tick', 'list']);
    expect(empty).toMatchObject({ code: 0, out: expect.stringMatching(/^No Tick packages are installed\. Install one with terminal-delight tick install/) });

    const installed = await td(['tick', 'install', 'note']);
    expect(installed.code).toBe(0);
    expect(installed.out).toContain(`${path.join(home, '.claude', 'skills', 'note', 'SKILL.md')}: put its Skill for Claude Code`);
    expect(installed.out).toContain(`${path.join(home, '.agents', 'skills', 'note', 'SKILL.md')}: put its Skill for Codex`);
    const folder = path.join(home, '.local', 'share', 'terminal-delight', 'ticks', 'note');

    const listed = await td(['tick', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.out.split('\n')).toEqual(expect.arrayContaining([
      'note  (user)  ready',
      `  folder: ${folder}`,
      `  opens: python3 ${folder}/note.py  (in ${folder}, titled Note)`,
      '  prerequisite met        command python3',
    ]));
    // Without python3 on PATH the prerequisite is not met, and the list says so.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    for (const tool of ['dirname', 'readlink']) fs.symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool));
    const noPython = await td(['tick', 'list'], { PATH: `${bin}:${path.dirname(process.execPath)}` });
    expect(noPython.out.split('\n')).toEqual(expect.arrayContaining(['note  (user)  needs setup', '  prerequisite NOT MET    command python3 (python3 is not on PATH)']));

    const removed = await td(['tick', 'install', '--uninstall', 'note']);
    expect(removed).toMatchObject({ code: 0, out: expect.stringContaining('took out the Tick package "note"') });
    expect(treeEntries(home)).toEqual(before);
  });

  it('answers misuse and bad packages in one line on stderr, with exit status 2 or 1', async () => {
    expect(await td(['tick', 'install'])).toMatchObject({ code: 2, err: expect.stringMatching(/^terminal-delight tick install: give one package/) });
    expect(await td(['tick', 'install', '--force', 'note'])).toMatchObject({ code: 2, err: expect.stringMatching(/"--force" is not an option/) });
    expect(await td(['tick', 'install', '--project', path.join(dir, 'nope'), 'note'])).toMatchObject({ code: 2, err: expect.stringMatching(/the project folder ".*nope" does not exist/) });
    fs.mkdirSync(path.join(dir, 'empty'));
    const bad = await td(['tick', 'install', './empty']);
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/empty has no SKILL\.md, so it is not a Tick package; .*nothing was installed\n$/) });
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(await td(['tick', 'frobnicate'])).toMatchObject({ code: 2, err: expect.stringMatching(/"frobnicate" is not a tick command; use check, install or list/) });
    expect(fs.readdirSync(home)).toEqual([]);
  });
});
