/**
 * The package installer on real files in a temp home: where the package and its Skill
 * land, that installing again changes nothing, and that uninstalling leaves every
 * folder byte for byte as it was (checksums of whole trees before and after).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUNDLED_TICKS, listPackages } from './find.ts';
import { install, uninstall } from './install.ts';
import { treeEntries } from './tree.ts';

let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-install-'));
  home = path.join(dir, 'home');
  fs.mkdirSync(home);
  env = { HOME: home, PATH: process.env.PATH };
  // What a person already has: Claude Code settings and a Skill of their own.
  fs.mkdirSync(path.join(home, '.claude', 'skills', 'mine'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{\n  "theme": "dark"\n}\n');
  fs.writeFileSync(path.join(home, '.claude', 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: my own\n---\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const opts = (more: Partial<Parameters<typeof install>[1]> = {}) => ({ env, cwd: dir, ...more });
const sample = (name: string, file: string) => fs.readFileSync(path.join(BUNDLED_TICKS, name, file));
const ok = (r: ReturnType<typeof install>): string[] => {
  if (!r.ok) throw new Error(r.error);
  return r.lines;
};

/** A copy of a sample somewhere else, to install from a PATH and change. */
function copyOf(name: string, where = path.join(dir, 'src', name)): string {
  fs.cpSync(path.join(BUNDLED_TICKS, name), where, { recursive: true });
  return where;
}

describe('tick install', () => {
  it('puts a sample package in the user\'s Ticks folder and its Skill where Claude Code and Codex read Skills; again changes nothing; --uninstall restores byte for byte', () => {
    const before = treeEntries(home);
    const lines = ok(install('counter', opts()));
    const ticks = path.join(home, '.local', 'share', 'terminal-delight', 'ticks');
    expect(lines).toEqual([
      expect.stringMatching(/ticks\/counter: installed the Tick package "counter" \(a copy of .*assets\/ticks\/counter\)$/),
      `${path.join(home, '.claude', 'skills', 'counter', 'SKILL.md')}: put its Skill for Claude Code`,
      `${path.join(home, '.agents', 'skills', 'counter', 'SKILL.md')}: put its Skill for Codex`,
    ]);
    expect(fs.readFileSync(path.join(ticks, 'counter', 'counter.mjs')).equals(sample('counter', 'counter.mjs'))).toBe(true);
    expect((fs.statSync(path.join(ticks, 'counter', 'counter.mjs')).mode & 0o111) !== 0).toBe(true);
    for (const skills of [path.join(home, '.claude', 'skills'), path.join(home, '.agents', 'skills')]) {
      expect(fs.readFileSync(path.join(skills, 'counter', 'SKILL.md')).equals(sample('counter', 'SKILL.md'))).toBe(true);
    }
    // What was there is kept.
    expect(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).toBe('{\n  "theme": "dark"\n}\n');
    expect(fs.existsSync(path.join(home, '.claude', 'skills', 'mine', 'SKILL.md'))).toBe(true);
    // Listed, with its launch resolved to an absolute argv and cwd.
    expect(listPackages({ env })).toEqual([expect.objectContaining({
      name: 'counter', scope: 'user', folder: path.join(ticks, 'counter'), ready: true,
      launch: { command: ['node', path.join(ticks, 'counter', 'counter.mjs')], cwd: path.join(ticks, 'counter'), title: 'Counter' },
      prerequisites: [{ kind: 'command', text: 'command node', met: true }],
    })]);

    const installed = treeEntries(home);
    expect(ok(install('counter', opts()))).toEqual([expect.stringMatching(/"counter" is already installed in .*; nothing changed$/)]);
    expect(treeEntries(home)).toEqual(installed);

    expect(ok(uninstall('counter', opts()))).toEqual([
      `${path.join(home, '.claude', 'skills', 'counter', 'SKILL.md')}: took out the Skill`,
      `${path.join(home, '.agents', 'skills', 'counter', 'SKILL.md')}: took out the Skill`,
      `${path.join(ticks, 'counter')}: took out the Tick package "counter"`,
    ]);
    expect(treeEntries(home)).toEqual(before);
    expect(ok(uninstall('counter', opts()))).toEqual([expect.stringMatching(/there is no Tick package "counter" installed in .*; nothing to take out$/)]);
  });

  it('shares the folders between packages and restores byte for byte in either order of taking them out', () => {
    const before = treeEntries(home);
    ok(install('counter', opts()));
    ok(install('note', opts()));
    ok(install('ticker', opts()));
    expect(listPackages({ env }).map((p) => p.name)).toEqual(['counter', 'note', 'ticker']);
    ok(uninstall('counter', opts()));
    expect(fs.existsSync(path.join(home, '.agents', 'skills', 'note', 'SKILL.md'))).toBe(true);
    ok(uninstall('ticker', opts()));
    ok(uninstall('note', opts()));
    expect(treeEntries(home)).toEqual(before);
  });

  it('follows CLAUDE_CONFIG_DIR for Claude Code\'s user Skills, as Claude Code does', () => {
    env.CLAUDE_CONFIG_DIR = path.join(home, 'claude-config');
    const before = treeEntries(home);
    ok(install('note', opts()));
    expect(fs.existsSync(path.join(home, 'claude-config', 'skills', 'note', 'SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(home, '.claude', 'skills', 'note'))).toBe(false);
    ok(uninstall('note', opts()));
    expect(treeEntries(home)).toEqual(before);
  });

  it('installs for one project: its .terminal-delight/ticks, .claude/skills and .agents/skills, the home untouched', () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(path.join(project, 'src', 'deep'), { recursive: true });
    fs.mkdirSync(path.join(project, '.claude'));
    fs.writeFileSync(path.join(project, '.claude', 'settings.json'), '{}\n');
    const homeBefore = treeEntries(home);
    const projectBefore = treeEntries(project);
    ok(install('counter', opts({ project })));
    expect(treeEntries(home)).toEqual(homeBefore);
    for (const f of ['.terminal-delight/ticks/counter/counter.mjs', '.claude/skills/counter/SKILL.md', '.agents/skills/counter/SKILL.md']) {
      expect(fs.existsSync(path.join(project, f)), f).toBe(true);
    }
    // Found from any folder inside the project, before the user's; not from outside it.
    ok(install('counter', opts()));
    expect(listPackages({ env, cwd: path.join(project, 'src', 'deep') }).map((p) => [p.name, p.scope])).toEqual([['counter', 'project']]);
    expect(listPackages({ env, cwd: dir }).map((p) => [p.name, p.scope])).toEqual([['counter', 'user']]);
    ok(uninstall('counter', opts({ project })));
    expect(treeEntries(project)).toEqual(projectBefore);
    ok(uninstall('counter', opts()));
    expect(treeEntries(home)).toEqual(homeBefore);
  });

  it('links a package with --link (a Tick being written), and takes out only the link', () => {
    const src = copyOf('counter');
    const srcBefore = treeEntries(src);
    const before = treeEntries(home);
    ok(install(src, opts({ link: true })));
    const dest = path.join(home, '.local', 'share', 'terminal-delight', 'ticks', 'counter');
    expect(fs.readlinkSync(dest)).toBe(fs.realpathSync(src));
    fs.appendFileSync(path.join(src, 'counter.mjs'), '// an edit\n');
    expect(fs.readFileSync(path.join(dest, 'counter.mjs'), 'utf8')).toMatch(/an edit\n$/);
    expect(ok(install(src, opts({ link: true })))).toEqual([expect.stringMatching(/nothing changed$/)]);
    ok(uninstall('counter', opts()));
    expect(treeEntries(home)).toEqual(before);
    expect(fs.readFileSync(path.join(src, 'counter.mjs'), 'utf8')).toMatch(/an edit\n$/);
    expect(treeEntries(src).map((e) => e.path)).toEqual(srcBefore.map((e) => e.path));
  });

  it('updates a copy whose source changed, and still restores byte for byte', () => {
    const src = copyOf('note');
    const before = treeEntries(home);
    ok(install(src, opts()));
    fs.appendFileSync(path.join(src, 'note.py'), '# changed\n');
    fs.writeFileSync(path.join(src, 'SKILL.md'), fs.readFileSync(path.join(src, 'SKILL.md'), 'utf8').replace('The Note Tick', 'The changed Note Tick'));
    const lines = ok(install(src, opts()));
    expect(lines).toEqual([
      expect.stringMatching(/ticks\/note: updated the Tick package "note"/),
      expect.stringMatching(/\.claude\/skills\/note\/SKILL\.md: updated its Skill for Claude Code$/),
      expect.stringMatching(/\.agents\/skills\/note\/SKILL\.md: updated its Skill for Codex$/),
    ]);
    expect(fs.readFileSync(path.join(home, '.claude', 'skills', 'note', 'SKILL.md'), 'utf8')).toContain('The changed Note Tick');
    ok(uninstall(src, opts()));
    expect(treeEntries(home)).toEqual(before);
  });

  it('keeps an installed Skill a person changed since, and says so', () => {
    ok(install('counter', opts()));
    const file = path.join(home, '.claude', 'skills', 'counter', 'SKILL.md');
    fs.appendFileSync(file, '\nMy own note.\n');
    const lines = ok(uninstall('counter', opts()));
    expect(lines).toContain(`${file}: changed since it was installed, so it is kept`);
    expect(fs.readFileSync(file, 'utf8')).toContain('My own note.');
    expect(fs.existsSync(path.join(home, '.agents', 'skills', 'counter'))).toBe(false);
  });

  it('refuses bad input in one sentence and changes nothing', () => {
    const bad = (name: string, skill: string | undefined) => {
      const folder = path.join(dir, 'bad', name);
      fs.mkdirSync(folder, { recursive: true });
      if (skill !== undefined) fs.writeFileSync(path.join(folder, 'SKILL.md'), skill);
      return folder;
    };
    const frontMatter = (meta: string) => `---\nname: broken\ndescription: A Tick.\nmetadata:\n${meta}\n---\n`;
    ok(install('ticker', opts()));
    const before = treeEntries(home);
    const cases: Array<[string, RegExp, Partial<Parameters<typeof install>[1]>?]> = [
      [bad('no-skill', undefined), /has no SKILL\.md, so it is not a Tick package; add a SKILL\.md .*; nothing was installed$/],
      [bad('yaml', '---\nname: broken\ndescription: [oops\n---\n'), /SKILL\.md: the front matter of SKILL\.md is not valid YAML \(line 3 of the file\): .*; nothing was installed$/],
      [bad('no-launch', frontMatter('  tick-command: no-such-tick-program-xyz\n  tick-requires: none')), /cannot be installed: the Tick command "no-such-tick-program-xyz" was not found on PATH; .*; nothing was installed$/],
      [bad('no-file', frontMatter('  tick-command: "{package}/missing.sh"\n  tick-requires: none')), /cannot be installed: the Tick command ".*missing\.sh" is not an executable file/],
      [path.join(dir, 'nowhere', 'x'), /the folder ".*" does not exist; give a Tick package's folder .* or a sample's name \(counter, note, ticker\)$/],
      ['no-such-sample', /there is no folder or sample named "no-such-sample"/],
    ];
    // A Skill of the same name that is not ours (Claude Code's folder, then the Ticks folder).
    fs.mkdirSync(path.join(dir, 'other-home', '.claude', 'skills', 'counter'), { recursive: true });
    cases.push(['counter', /^Claude Code already has a Skill named "counter" \(.*other-home\/\.claude\/skills\/counter\); rename this package or remove that Skill; nothing was installed$/, { env: { HOME: path.join(dir, 'other-home'), PATH: env.PATH } }]);
    fs.mkdirSync(path.join(dir, 'third-home', '.local', 'share', 'terminal-delight', 'ticks', 'note'), { recursive: true });
    cases.push(['note', /^a Tick package named "note" is already in .* and was not installed by terminal-delight tick install; .*nothing was installed$/, { env: { HOME: path.join(dir, 'third-home'), PATH: env.PATH } }]);
    // Another package of the same name from elsewhere.
    cases.push([copyOf('ticker'), /^a Tick package named "ticker" is already installed from .*assets\/ticks\/ticker; take it out first \(terminal-delight tick install --uninstall ticker\) or rename this package; nothing was installed$/]);
    for (const [arg, error, more] of cases) {
      const others = more?.env?.HOME ? treeEntries(more.env.HOME) : undefined;
      const r = install(arg, opts(more));
      expect(r, arg).toMatchObject({ ok: false, error: expect.stringMatching(error) });
      if (!r.ok) expect(r.error.split(/[.!?] /).length, r.error).toBe(1);
      expect(treeEntries(home), arg).toEqual(before);
      if (others) expect(treeEntries(more!.env!.HOME!)).toEqual(others);
    }
    // Taking out what this installer did not put in.
    const r = uninstall('note', opts({ env: { HOME: path.join(dir, 'third-home'), PATH: env.PATH } }));
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/was not installed by terminal-delight tick install \(there is no record of it\), so it is left as it is/) });
    expect(fs.existsSync(path.join(dir, 'third-home', '.local', 'share', 'terminal-delight', 'ticks', 'note'))).toBe(true);
  });
});
