import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_TICKS } from './find.ts';
import { launchOf, parseSkill } from './skill.ts';

const skill = (front: string, body = '\n# A Tick\n') => `---\n${front}\n---\n${body}`;
const GOOD = `name: demo
description: A demo Tick. Use when testing.
metadata:
  tick-command: node {package}/demo.mjs --fast
  tick-requires: none`;

describe('parseSkill', () => {
  it('reads the samples\' Skills, each named as its folder, with a launch and prerequisites', () => {
    for (const name of ['counter', 'note', 'ticker']) {
      const r = parseSkill(fs.readFileSync(path.join(BUNDLED_TICKS, name, 'SKILL.md'), 'utf8'), name);
      expect(r, name).toMatchObject({ ok: true, skill: { name, command: [expect.any(String), `{package}/${name === 'note' ? 'note.py' : `${name}.mjs`}`] } });
      if (r.ok) expect(r.skill.prerequisites.length).toBeGreaterThan(0);
    }
  });

  it('reads the launch: words split like a shell, {package} filled in, cwd and title', () => {
    const r = parseSkill(skill(`${GOOD}\n  tick-cwd: data\n  tick-title: '  Demo  '`), 'demo');
    expect(r).toEqual({ ok: true, skill: { name: 'demo', description: 'A demo Tick. Use when testing.', command: ['node', '{package}/demo.mjs', '--fast'], cwd: 'data', title: 'Demo', prerequisites: [] } });
    if (!r.ok) return;
    expect(launchOf(r.skill, '/opt/ticks/demo')).toEqual({ command: ['node', '/opt/ticks/demo/demo.mjs', '--fast'], cwd: '/opt/ticks/demo/data', title: 'Demo' });
    // A folder with blanks stays one word; the default cwd is the package's folder.
    const plain = parseSkill(skill(GOOD));
    if (!plain.ok) throw new Error(plain.error);
    expect(launchOf(plain.skill, '/home/a b/demo')).toEqual({ command: ['node', '/home/a b/demo/demo.mjs', '--fast'], cwd: '/home/a b/demo' });
    // Quotes in the command line, CRLF line ends and a byte-order mark are read as people write them.
    const quoted = parseSkill('\uFEFF' + skill(GOOD.replace('--fast', `--say 'two words'`)).replace(/\n/g, '\r\n'));
    expect(quoted).toMatchObject({ ok: true, skill: { command: ['node', '{package}/demo.mjs', '--say', 'two words'] } });
  });

  it('refuses, in one sentence each, what does not read', () => {
    const cases: Array<[string, RegExp, string?]> = [
      ['# no front matter\n', /does not start with YAML front matter/],
      ['---\nname: demo\n', /never closed/],
      [skill('name: demo\ndescription: [unclosed'), /not valid YAML \(line \d+ of the file\)/],
      [skill('name: demo\nname: again\ndescription: x'), /not valid YAML.*[Mm]ap keys must be unique/],
      [skill('- a list'), /must be a YAML mapping/],
      [skill(`${GOOD}\nwhen_to_use: always`), /field "when_to_use", which the Agent Skills format does not allow/],
      [skill(GOOD.replace('name: demo', 'name: Demo_Tick')), /name "Demo_Tick" is not allowed/],
      [skill(GOOD.replace('name: demo', 'name: a--b')), /not allowed/],
      [skill(GOOD), /named "demo" but its folder is "other"/, 'other'],
      [skill(GOOD.replace('description: A demo Tick. Use when testing.', 'description: ""')), /no description/],
      [skill(GOOD.replace('description: A demo Tick. Use when testing.', `description: ${'x'.repeat(1025)}`)), /1025 characters; Agent Skills allow 1024/],
      [skill('name: demo\ndescription: d'), /no metadata; a Tick package states its launch there/],
      [skill(GOOD.replace('tick-requires: none', 'tick-requires: none\n  tick-port: 8080')), /metadata tick-port in SKILL.md must be text/],
      [skill(GOOD.replace(/ {2}tick-command: .*\n/, '')), /no metadata tick-command/],
      [skill(GOOD.replace('--fast', "'unclosed")), /tick-command in SKILL.md does not read: the single quote/],
      [skill(GOOD.replace(/\n {2}tick-requires: none/, '')), /does not state its prerequisites/],
      [skill(GOOD.replace('tick-requires: none', 'tick-requires: env 9LIVES')), /"env 9LIVES" is not well formed/],
      [skill(GOOD.replace('description: A demo Tick. Use when testing.', 'description: "A demo \\e[2J Tick."')), /^description in SKILL\.md holds a control character \(U\+001B\); take it out/],
      [skill(GOOD.replace('tick-requires: none', 'tick-requires: "Log in \\x07 first"')), /^tick-requires in SKILL\.md holds a control character \(U\+0007\)/],
    ];
    for (const [text, error, folder] of cases) {
      const r = parseSkill(text, folder);
      expect(r, text).toMatchObject({ ok: false, error: expect.stringMatching(error) });
      if (!r.ok) expect(r.error.split(/[.!?] /).length, r.error).toBe(1);
    }
  });

  it('names the part at fault: the launch or the prerequisites', () => {
    expect(parseSkill(skill(GOOD.replace(/ {2}tick-command: .*\n/, '')))).toMatchObject({ ok: false, part: 'tick-command' });
    expect(parseSkill(skill(GOOD.replace(/\n {2}tick-requires: none/, '')))).toMatchObject({ ok: false, part: 'tick-requires' });
    expect(parseSkill(skill('name: demo'))).not.toHaveProperty('part');
  });
});
