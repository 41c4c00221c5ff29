import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { applySettings, DEFAULT_SETTINGS, loadSettings, SettingsService } from './settings.ts';

let state: ReturnType<typeof tempState>;
let file: string;
beforeEach(() => {
  state = tempState();
  file = path.join(state.env.XDG_STATE_HOME!, 'terminal-delight', 'settings.json');
});
afterEach(() => state.cleanup());

describe('settings', () => {
  it('has the documented defaults', () => {
    expect(new SettingsService(file).get()).toEqual({
      theme: 'system', fontSize: 13, fontFamily: '', scrollback: 10000, copyOnSelect: true, mcpServer: true, mcpWrites: true, agentCommand: ['claude'],
      notifications: true, windowClose: 'keep', resumeAtStart: 'shells', shellIntegration: true, worktreeFolder: '', worktreeSetup: '', machines: [],
      search: { enabled: true, keepDays: 90, excludePanes: [], mcpAgents: [], leaveOut: [] },
    });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('changes one search setting and keeps the others', () => {
    const s = new SettingsService(file);
    expect(s.set({ search: { mcpAgents: ['codex'] } }).search).toEqual({ enabled: true, keepDays: 90, excludePanes: [], mcpAgents: ['codex'], leaveOut: [] });
    expect(s.set({ search: { keepDays: 7 } }).search).toEqual({ enabled: true, keepDays: 7, excludePanes: [], mcpAgents: ['codex'], leaveOut: [] });
    expect(s.set({ search: { leaveOut: ['output', 'ticks'] } }).search.leaveOut).toEqual(['output', 'ticks']);
    expect(() => s.set({ search: { leaveOut: ['screens'] as never } })).toThrow('search.leaveOut must be a list of what not to index (output, commands, agents, cards, ticks)');
  });

  it('saves a change atomically, tells listeners, and reads it back', () => {
    const s = new SettingsService(file);
    const seen: number[] = [];
    s.onChange((v) => seen.push(v.fontSize));
    expect(s.set({ fontSize: 15, theme: 'dark' })).toMatchObject({ fontSize: 15, theme: 'dark' });
    expect(seen).toEqual([15]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ fontSize: 15, theme: 'dark' });
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(new SettingsService(file).get()).toMatchObject({ fontSize: 15, theme: 'dark', scrollback: 10000 });
  });

  it('refuses bad values with one sentence and changes nothing', () => {
    const s = new SettingsService(file);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ theme: 'blue' }, /theme "blue" is not known: use "system", "light" or "dark"/],
      [{ fontSize: 2 }, /fontSize 2 is out of range/],
      [{ scrollback: 1.5 }, /scrollback 1.5 is out of range/],
      [{ copyOnSelect: 'yes' }, /copyOnSelect must be true or false/],
      [{ search: { keepDays: -1 } }, /search.keepDays -1 is out of range: use a whole number of days from 0 \(forever\) to 36500/],
      [{ search: { mcpAgents: ['hal'] } }, /search.mcpAgents must be a list of agent names \(claude, codex, gemini, opencode\)/],
      [{ search: { colour: 'red' } }, /there is no search setting "colour"/],
      [{ agentCommand: [] }, /agentCommand must be a non-empty list of strings/],
      [{ agentCommand: 'claude' }, /agentCommand must be a non-empty list/],
      [{ fontSize: 14, colour: 'red' }, /there is no setting "colour"/],
      // Machines (docs/spec/remote.md): a name that would qualify a pane id wrongly, a target ssh would read as an option, a colour that is not #rrggbb, a name twice.
      [{ machines: [{ name: 'a/b', target: 'box', colour: '#112233' }] }, /^machines must be a list of \{name, target, colour\}/],
      [{ machines: [{ name: 'box', target: '-oProxyCommand=x', colour: '#112233' }] }, /^machines must be a list/],
      [{ machines: [{ name: 'box', target: 'box', colour: 'red' }] }, /^machines must be a list/],
      [{ machines: [{ name: 'box', target: 'box', colour: '#112233' }, { name: 'box', target: 'b2', colour: '#112233' }] }, /^machines must be a list/],
    ];
    for (const [patch, msg] of cases) expect(() => s.set(patch as never)).toThrow(msg);
    expect(() => applySettings(DEFAULT_SETTINGS, null)).toThrow(/settings must be an object/);
    expect(applySettings(DEFAULT_SETTINGS, { machines: [{ name: 'gpu', target: 'ada@10.0.0.7:2222', colour: '#d2691e', command: '~/td/bin/terminal-delight', extra: 1 }] }).machines)
      .toEqual([{ name: 'gpu', target: 'ada@10.0.0.7:2222', colour: '#d2691e', command: '~/td/bin/terminal-delight' }]);
    expect(s.get()).toEqual(DEFAULT_SETTINGS);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('reads a damaged file leniently: bad fields fall back to defaults', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ fontSize: 'huge', theme: 'light', unknown: 1 }));
    expect(loadSettings(file)).toEqual({ ...DEFAULT_SETTINGS, theme: 'light' });
  });

  it('never overwrites a file that is not JSON silently: moved aside, said in one sentence, defaults in use', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"fontSize": 15,, "theme": "dark"}');
    const s = new SettingsService(file, () => new Date('2026-11-30T06:48:00.123Z'));
    expect(s.get()).toEqual(DEFAULT_SETTINGS);
    const aside = `${file}.broken-20261130T064800Z`;
    expect(fs.readFileSync(aside, 'utf8')).toBe('{"fontSize": 15,, "theme": "dark"}');
    expect(fs.existsSync(file)).toBe(false);
    expect(s.problem()).toMatch(/^settings\.json is not JSON \([^()]+\): it was moved to settings\.json\.broken-20261130T064800Z and the defaults are in use\.$/);
    // Saving a setting writes a fresh file; the broken one stays as it was, and the problem is over.
    s.set({ fontSize: 14 });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ fontSize: 14 });
    expect(fs.readFileSync(aside, 'utf8')).toBe('{"fontSize": 15,, "theme": "dark"}');
    expect(s.problem()).toBeUndefined();
  });

  it('keeps a copy of a file with unusable settings, uses the rest, and keeps keys it does not know', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = JSON.stringify({ fontSize: 500, theme: 'light', scrollback: -1, fromNewerBuild: { x: 1 } });
    fs.writeFileSync(file, text);
    const s = new SettingsService(file, () => new Date('2026-11-30T07:00:00Z'));
    expect(s.get()).toEqual({ ...DEFAULT_SETTINGS, theme: 'light' });
    expect(s.problem()).toBe('settings.json had 2 settings that could not be used (fontSize 500 is out of range: use a number from 6 to 72; and 1 more): they are at the default, and the file as it was is kept as settings.json.broken-20261130T070000Z.');
    expect(fs.readFileSync(`${file}.broken-20261130T070000Z`, 'utf8')).toBe(text);
    s.set({ fontSize: 16 });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ fontSize: 16, theme: 'light', scrollback: 10000, fromNewerBuild: { x: 1 } });
    // A good file: no problem, nothing kept aside.
    const again = new SettingsService(file);
    expect(again.problem()).toBeUndefined();
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.broken-'))).toEqual(['settings.json.broken-20261130T070000Z']);
  });

  it('never replaces an earlier copy, and refuses to save over a broken file it could not keep aside', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const clock = () => new Date('2026-11-30T08:00:00Z');
    const base = `${file}.broken-20261130T080000Z`;
    fs.writeFileSync(base, 'an earlier copy');
    fs.writeFileSync(file, 'not json');
    expect(new SettingsService(file, clock).problem()).toMatch(/moved to settings\.json\.broken-20261130T080000Z-2 and/);
    expect(fs.readFileSync(base, 'utf8')).toBe('an earlier copy');
    expect(fs.readFileSync(`${base}-2`, 'utf8')).toBe('not json');
    // Every name taken: the file stays where it is, and nothing is saved over it.
    for (let n = 3; n <= 9; n++) fs.mkdirSync(`${base}-${n}`);
    fs.writeFileSync(file, 'still not json');
    const s = new SettingsService(file, clock);
    expect(s.problem()).toMatch(/^settings\.json could not be used and could not be kept aside \(.+\): fix or remove it; until then the defaults are used and nothing is saved over it\.$/);
    expect(() => s.set({ fontSize: 14 })).toThrow(/nothing is saved over it/);
    expect(fs.readFileSync(file, 'utf8')).toBe('still not json');
  });
});
