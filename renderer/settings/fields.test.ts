import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../preload/contract.ts';
import { parseCommandLine } from '../../common/argv.ts';
import { FIELDS, GROUPS, commandLine, fieldId, parseInput, patchFor, shown } from './fields.ts';

const field = (key: keyof Settings) => FIELDS.find((f) => f.key === key)!;

describe('settings fields', () => {
  it('cover every setting once, in the seven groups, each with a label and one line of help', () => {
    // (settings.machines is kept by "+ Machine…", not by a field: renderer/machines.)
    expect(FIELDS.filter((f) => !f.sub).map((f) => f.key).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).filter((k) => k !== 'search' && k !== 'machines').sort());
    // settings.search: each of its fields, mcpAgents as one switch an agent, leaveOut one a source.
    expect(FIELDS.filter((f) => f.sub).map((f) => f.sub).sort()).toEqual(['enabled', 'excludePanes', 'keepDays', 'leave:agents', 'leave:cards', 'leave:commands', 'leave:output', 'leave:ticks', 'mcp:claude', 'mcp:codex', 'mcp:gemini', 'mcp:opencode']);
    expect(new Set(FIELDS.map(fieldId)).size).toBe(FIELDS.length);
    expect(new Set(FIELDS.map((f) => f.group))).toEqual(new Set(GROUPS));
    for (const f of FIELDS) {
      expect(f.label.length, f.key).toBeGreaterThan(2);
      expect(f.help, f.key).toMatch(/^[A-Z].*\.$/);
      expect(f.help.split(/\.\s/), f.key).toHaveLength(1);
    }
  });

  it('show a command as a line that reads back as the same argv', () => {
    for (const argv of [['claude'], ['claude', '--model', 'opus'], ['my agent', "it's", 'a"b', '$HOME']]) {
      const line = commandLine(argv);
      expect(parseCommandLine(line)).toEqual({ ok: true, argv });
    }
    expect(shown(field('agentCommand'), { ...DEFAULT_SETTINGS, agentCommand: ['claude', '--x y'] })).toBe("claude '--x y'");
    expect(shown(field('mcpWrites'), DEFAULT_SETTINGS)).toBe(true);
    expect(shown(field('fontSize'), DEFAULT_SETTINGS)).toBe('13');
  });

  it('change only their part of the search settings', () => {
    const sub = (s: string) => FIELDS.find((f) => f.sub === s)!;
    const settings = { ...DEFAULT_SETTINGS, search: { ...DEFAULT_SETTINGS.search, mcpAgents: ['claude' as const] } };
    expect(shown(sub('mcp:claude'), settings)).toBe(true);
    expect(shown(sub('mcp:codex'), settings)).toBe(false);
    expect(patchFor(sub('mcp:codex'), true, settings)).toEqual({ search: { mcpAgents: ['claude', 'codex'] } });
    expect(patchFor(sub('mcp:claude'), false, settings)).toEqual({ search: { mcpAgents: [] } });
    expect(patchFor(sub('excludePanes'), 'pabc, xyz12345  p2', settings)).toEqual({ search: { excludePanes: ['pabc', 'xyz12345', 'p2'] } });
    expect(patchFor(sub('keepDays'), 30, settings)).toEqual({ search: { keepDays: 30 } });
    // A source's switch: on, indexed (not in leaveOut).
    const leaving = { ...settings, search: { ...settings.search, leaveOut: ['ticks' as const] } };
    expect([shown(sub('leave:output'), leaving), shown(sub('leave:ticks'), leaving)]).toEqual([true, false]);
    expect(patchFor(sub('leave:output'), false, leaving)).toEqual({ search: { leaveOut: ['ticks', 'output'] } });
    expect(patchFor(sub('leave:ticks'), true, leaving)).toEqual({ search: { leaveOut: [] } });
    expect(shown(sub('keepDays'), settings)).toBe('90');
    expect(patchFor(field('fontSize'), 14, settings)).toEqual({ fontSize: 14 });
  });

  it('turn input into values, or say in one sentence what to change', () => {
    expect(parseInput(field('fontSize'), '15')).toEqual({ ok: true, value: 15 });
    expect(parseInput(field('fontSize'), '500')).toEqual({ ok: false, error: 'Font size is a whole number from 6 to 72.' });
    expect(parseInput(field('scrollback'), 'lots')).toEqual({ ok: false, error: 'Scrollback is a whole number from 0 to 1,000,000.' });
    expect(parseInput(field('agentCommand'), "codex --full-auto 'a b'")).toEqual({ ok: true, value: ['codex', '--full-auto', 'a b'] });
    expect(parseInput(field('agentCommand'), '  ')).toEqual({ ok: false, error: 'Give the command that starts your agent, for example claude.' });
    expect(parseInput(field('agentCommand'), "claude 'oops")).toMatchObject({ ok: false, error: expect.stringMatching(/never closed/) });
    expect(parseInput(field('theme'), 'dark')).toEqual({ ok: true, value: 'dark' });
    expect(parseInput(field('windowClose'), 'later')).toEqual({ ok: false, error: 'Choose one of Keeps panes running, Ends every pane.' });
    expect(parseInput(field('mcpServer'), false)).toEqual({ ok: true, value: false });
    expect(parseInput(field('worktreeFolder'), ' /srv/trees ')).toEqual({ ok: true, value: '/srv/trees' });
  });
});
