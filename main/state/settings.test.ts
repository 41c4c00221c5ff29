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
      notifications: true, windowClose: 'keep', resumeAtStart: 'shells', shellIntegration: true, worktreeFolder: '', worktreeSetup: '',
    });
    expect(fs.existsSync(file)).toBe(false);
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
      [{ agentCommand: [] }, /agentCommand must be a non-empty list of strings/],
      [{ agentCommand: 'claude' }, /agentCommand must be a non-empty list/],
      [{ fontSize: 14, colour: 'red' }, /there is no setting "colour"/],
    ];
    for (const [patch, msg] of cases) expect(() => s.set(patch as never)).toThrow(msg);
    expect(() => applySettings(DEFAULT_SETTINGS, null)).toThrow(/settings must be an object/);
    expect(s.get()).toEqual(DEFAULT_SETTINGS);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('reads a damaged file leniently: bad fields fall back to defaults', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ fontSize: 'huge', theme: 'light', unknown: 1 }));
    expect(loadSettings(file)).toEqual({ ...DEFAULT_SETTINGS, theme: 'light' });
    fs.writeFileSync(file, '{not json');
    expect(new SettingsService(file).get()).toEqual(DEFAULT_SETTINGS);
  });
});
