import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPrerequisites, parsePrerequisites, unmetPhrase } from './prerequisites.ts';

describe('parsePrerequisites', () => {
  it('reads none, the three checkable forms and free text', () => {
    expect(parsePrerequisites('none')).toEqual({ ok: true, items: [] });
    expect(parsePrerequisites(' None. ')).toEqual({ ok: true, items: [] });
    expect(parsePrerequisites('env GH_TOKEN; command gh ;file ~/.config/gh/hosts.yml; Sign in once with gh auth login.')).toEqual({
      ok: true,
      items: [
        { kind: 'env', value: 'GH_TOKEN', text: 'env GH_TOKEN' },
        { kind: 'command', value: 'gh', text: 'command gh' },
        { kind: 'file', value: '~/.config/gh/hosts.yml', text: 'file ~/.config/gh/hosts.yml' },
        { kind: 'text', text: 'Sign in once with gh auth login.' },
      ],
    });
  });

  it('refuses an empty statement and malformed checkable forms', () => {
    expect(parsePrerequisites('  ')).toMatchObject({ ok: false, error: expect.stringMatching(/write none when the Tick needs nothing/) });
    expect(parsePrerequisites('env MY-VAR')).toMatchObject({ ok: false, error: expect.stringMatching(/env NAME takes one variable name/) });
    expect(parsePrerequisites('command two words')).toMatchObject({ ok: false, error: expect.stringMatching(/command NAME takes one program/) });
    expect(parsePrerequisites('file relative/path')).toMatchObject({ ok: false, error: expect.stringMatching(/file PATH takes an absolute path, ~\/… or \{package\}\/…/) });
  });
});

describe('checkPrerequisites', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-prereq-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('looks at the environment, PATH and files; free text stays for a person', () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'not-executable'), 'x', { mode: 0o644 });
    fs.mkdirSync(path.join(dir, 'home', '.config'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'home', '.config', 'token'), 'x');
    fs.writeFileSync(path.join(dir, 'pkg-file'), 'x');
    const parsed = parsePrerequisites('env SET; env EMPTY; env UNSET; command tool; command not-executable; command {package}/bin/tool; file ~/.config/token; file {package}/pkg-file; file /no/such/file; Log in first.');
    if (!parsed.ok) throw new Error(parsed.error);
    const s = checkPrerequisites(parsed.items, { env: { SET: '1', EMPTY: '', PATH: bin, HOME: path.join(dir, 'home') }, folder: dir });
    expect(s.map((x) => [x.text, x.met])).toEqual([
      ['env SET', true],
      ['env EMPTY', false],
      ['env UNSET', false],
      ['command tool', true],
      ['command not-executable', false],
      ['command {package}/bin/tool', true],
      ['file ~/.config/token', true],
      ['file {package}/pkg-file', true],
      ['file /no/such/file', false],
      ['Log in first.', null],
    ]);
    expect(unmetPhrase(s)).toBe('EMPTY is not set, UNSET is not set, not-executable is not on PATH, /no/such/file does not exist');
  });
});
