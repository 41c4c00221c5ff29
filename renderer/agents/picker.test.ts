import { describe, expect, it } from 'vitest';
import type { AvailableAgent } from '../../preload/contract.ts';
import { availableAsk, firstActive, moveActive, pickerRows } from './picker.ts';

const claude: AvailableAgent = { name: 'claude', label: 'Claude Code', command: ['claude', '--model', 'opus'], installed: true, path: '/usr/bin/claude', configured: true };
const codex: AvailableAgent = { name: 'codex', label: 'Codex', command: ['codex'], installed: true, path: '/opt/bin/codex' };
const gemini: AvailableAgent = { name: 'gemini', label: 'Gemini CLI', command: ['gemini'], installed: false, install: 'npm install -g @google/gemini-cli' };

describe('the agent chooser', () => {
  it('shows each agent as the core lists it: where it is, or how to install it', () => {
    expect(pickerRows([claude, codex, gemini], ['claude', '--model', 'opus'])).toEqual([
      { key: 'claude', name: 'claude', label: 'Claude Code', command: ['claude', '--model', 'opus'], installed: true, configured: true, detail: 'claude --model opus · /usr/bin/claude' },
      { key: 'codex', name: 'codex', label: 'Codex', command: ['codex'], installed: true, configured: false, detail: 'codex · /opt/bin/codex' },
      { key: 'gemini', name: 'gemini', label: 'Gemini CLI', command: ['gemini'], installed: false, configured: false, detail: 'Install with: npm install -g @google/gemini-cli', install: 'npm install -g @google/gemini-cli' },
    ]);
  });

  it('an installed agent whose hooks are not installed carries the command that installs them; one whose service does not say, none', () => {
    const rows = pickerRows([{ ...claude, hooks: true }, { ...codex, hooks: false }, gemini, { ...codex, name: 'opencode', label: 'OpenCode' }], ['claude', '--model', 'opus']);
    expect(rows.map((r) => r.hooksCommand)).toEqual([undefined, 'terminal-delight hooks --agent codex', undefined, undefined]);
  });

  it('a configured command that is no agent the app knows comes first, as it is', () => {
    const rows = pickerRows([{ ...codex }, gemini], ['/home/ada/bin/aider', '--yes']);
    expect(rows[0]).toEqual({ key: 'settings', label: 'aider', command: ['/home/ada/bin/aider', '--yes'], installed: true, configured: true, detail: '/home/ada/bin/aider --yes · settings.agentCommand' });
    expect(rows.map((r) => r.key)).toEqual(['settings', 'codex', 'gemini']);
  });

  it('starts on the first installed row, and the keys move through every row, wrapping', () => {
    const rows = pickerRows([{ ...gemini, configured: true, command: ['gemini', '-m', 'flash'] }, codex], ['gemini', '-m', 'flash']);
    expect(firstActive(rows)).toBe(1);
    expect(firstActive(pickerRows([gemini], []))).toBe(0);
    expect(moveActive(0, 3, 'ArrowDown')).toBe(1);
    expect(moveActive(2, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(0, 3, 'ArrowUp')).toBe(2);
    expect(moveActive(1, 3, 'End')).toBe(2);
    expect(moveActive(2, 3, 'Home')).toBe(0);
    expect(moveActive(1, 3, 'a')).toBe(1);
    expect(moveActive(0, 0, 'ArrowDown')).toBe(0);
  });

  it('asks for the agents of this machine\'s pane it starts beside; another machine\'s alone (its service may not take the pane)', () => {
    expect(availableAsk('p1abc', '')).toEqual({ splitOf: 'p1abc' });
    expect(availableAsk('box/p2def', 'box')).toEqual({ machine: 'box' });
    expect(availableAsk('p1abc', 'box')).toEqual({ machine: 'box' });
    expect(availableAsk('box/p2def', '')).toEqual({});
    expect(availableAsk(undefined, '')).toEqual({});
    expect(availableAsk(null, 'box')).toEqual({ machine: 'box' });
  });
});
