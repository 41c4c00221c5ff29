/** Finding installed packages on real folders: scopes, shadowing, broken Skills, and open requests by package. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPackage, listPackages, packageOpen, projectTicksFolder, userTicksFolder } from './find.ts';

let dir: string;
let env: NodeJS.ProcessEnv;

function pkg(ticks: string, name: string, skill: string): string {
  const folder = path.join(ticks, name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'SKILL.md'), skill);
  return folder;
}
const skill = (name: string, requires = 'none', extra = '') => `---\nname: ${name}\ndescription: The ${name} Tick.\nmetadata:\n  tick-command: node {package}/${name}.mjs\n  tick-requires: ${requires}\n${extra}---\n`;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-find-'));
  env = { HOME: path.join(dir, 'home'), PATH: process.env.PATH };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('finding Tick packages', () => {
  it('puts the user\'s under XDG_DATA_HOME (or ~/.local/share) and a project\'s in the nearest .terminal-delight/ticks', () => {
    expect(userTicksFolder(env)).toBe(path.join(dir, 'home', '.local', 'share', 'terminal-delight', 'ticks'));
    expect(userTicksFolder({ ...env, XDG_DATA_HOME: path.join(dir, 'data') })).toBe(path.join(dir, 'data', 'terminal-delight', 'ticks'));
    expect(userTicksFolder({ ...env, XDG_DATA_HOME: 'relative' })).toBe(path.join(dir, 'home', '.local', 'share', 'terminal-delight', 'ticks'));
    fs.mkdirSync(path.join(dir, 'p', '.terminal-delight', 'ticks'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'p', 'a', 'b'), { recursive: true });
    expect(projectTicksFolder(path.join(dir, 'p', 'a', 'b'))).toBe(path.join(dir, 'p', '.terminal-delight', 'ticks'));
    expect(projectTicksFolder(path.join(dir, 'elsewhere'))).toBeUndefined();
    expect(projectTicksFolder('relative/path')).toBeUndefined();
  });

  it('lists the project\'s first, shadows the user\'s of the same name, and shows a broken one with its problem', () => {
    const user = userTicksFolder(env);
    const project = path.join(dir, 'p', '.terminal-delight', 'ticks');
    pkg(user, 'alpha', skill('alpha'));
    pkg(user, 'shared', skill('shared'));
    pkg(user, 'broken', '---\nname: broken\n---\n');
    pkg(user, 'misnamed', skill('other'));
    fs.mkdirSync(path.join(user, '.hidden'));
    fs.writeFileSync(path.join(user, 'alpha.td-install.json'), '{}');
    pkg(project, 'shared', skill('shared', 'env TD_FIND_TEST_TOKEN'));
    const list = listPackages({ env, cwd: path.join(dir, 'p') });
    expect(list.map((p) => [p.name, p.scope, p.ready])).toEqual([['shared', 'project', false], ['alpha', 'user', true], ['broken', 'user', false], ['misnamed', 'user', false]]);
    expect(list[2]).toEqual({ name: 'broken', description: '', scope: 'user', folder: path.join(user, 'broken'), prerequisites: [], ready: false, problem: expect.stringMatching(/broken: SKILL\.md has no description/) });
    expect(list[3]!.problem).toMatch(/the Skill is named "other" but its folder is "misnamed"/);
    expect(listPackages({ env }).map((p) => p.name)).toEqual(['alpha', 'broken', 'misnamed', 'shared']);
  });

  it('turns an open request by package into one by command, or refuses it in one sentence', () => {
    const user = userTicksFolder(env);
    const alpha = pkg(user, 'alpha', skill('alpha', 'none', '  tick-title: Alpha\n  tick-cwd: work\n'));
    pkg(user, 'gated', skill('gated', 'env TD_FIND_TEST_TOKEN; file ~/.token; Sign in first.'));
    pkg(user, 'broken', '---\nname: broken\n---\n');
    expect(packageOpen({ command: ['x'] }, env)).toEqual({ ok: true, request: { command: ['x'] } });
    expect(packageOpen({ package: 'alpha' }, env)).toEqual({ ok: true, request: { command: ['node', path.join(alpha, 'alpha.mjs')], cwd: path.join(alpha, 'work'), title: 'Alpha', package: undefined } });
    expect(packageOpen({ package: 'alpha', cwd: ' /srv ', title: ' Mine ' }, env)).toMatchObject({ ok: true, request: { cwd: '/srv', title: 'Mine' } });
    expect(packageOpen({ package: alpha }, env)).toMatchObject({ ok: true, request: { command: ['node', path.join(alpha, 'alpha.mjs')] } });
    const refusals: Array<[Parameters<typeof packageOpen>[0], string | RegExp]> = [
      [{ package: 'nope' }, 'there is no installed Tick package named "nope" (installed: alpha, broken, gated); install it with terminal-delight tick install, or give a command line instead'],
      [{ package: 'alpha', command: ['node'] }, 'give either command or package, not both'],
      [{ package: 5 as unknown as string }, 'package must be a Tick package\'s name as a string, like "counter"'],
      [{ package: 'relative/alpha' }, 'the package folder "relative/alpha" is relative; give its absolute path, or the package\'s name'],
      [{ package: path.join(dir, 'none') }, /^the package folder ".*none" does not exist/],
      [{ package: 'broken' }, /^the Tick package "broken" cannot be opened: .*SKILL\.md has no description/],
      [{ package: 'gated' }, 'the Tick package "gated" is not ready: TD_FIND_TEST_TOKEN is not set, ~/.token does not exist (Sign in first); a person sets that up, then open it again'],
    ];
    for (const [req, error] of refusals) expect(packageOpen(req, env), JSON.stringify(req)).toEqual({ ok: false, error: typeof error === 'string' ? error : expect.stringMatching(error) });
    fs.mkdirSync(env.HOME!, { recursive: true });
    fs.writeFileSync(path.join(env.HOME!, '.token'), 'x');
    expect(packageOpen({ package: 'gated' }, { ...env, TD_FIND_TEST_TOKEN: 't' })).toMatchObject({ ok: true });
    expect(findPackage('gated', { env: { ...env, TD_FIND_TEST_TOKEN: 't' } })).toMatchObject({ ok: true, pkg: { ready: true } });
  });
});
