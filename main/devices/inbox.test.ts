import { describe, expect, it } from 'vitest';
import type { PaneInfo, Surface } from '../../preload/contract.ts';
import { agentsOf, answerProblem, inboxOf, programOf, waitsForPerson } from './inbox.ts';
import { parseAddress } from './cli.ts';
import { checkAddress } from './service.ts';

const pane = (id: string, extra: Partial<PaneInfo> = {}): PaneInfo => ({
  id, tag: `t${id}`, kind: 'agent', title: `pane ${id}`, cwd: `/src/${id}`, command: ['/usr/bin/claude'], status: 'running', cols: 80, rows: 24, benchOpen: true, unseen: 0, ...extra,
});
let order = 0;
const surface = (id: string, kind: Surface['kind'], model: Record<string, unknown>, extra: Partial<Surface> = {}): Surface => ({
  id, kind, title: id, shelf: 'Decide', model, route: 'file', order: ++order, arrivedAt: `2026-01-01T00:00:0${order % 10}Z`, updatedAt: `2026-01-01T00:00:0${order % 10}Z`, seen: false, acted: [], ...extra,
});

describe('the inbox', () => {
  it('holds decisions, questions and changes nobody answered, and agents\' prompts still waiting', () => {
    expect(waitsForPerson(surface('a', 'decision', { question: 'q', options: [] }))).toBe(true);
    expect(waitsForPerson(surface('a', 'decision', { question: 'q' }, { acted: [{ action: 'reject', at: 'x' }] }))).toBe(false);
    expect(waitsForPerson(surface('a', 'response', { layman: 'hi' }))).toBe(false);
    expect(waitsForPerson(surface('a', 'change', { files: [{ path: 'a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' }] }))).toBe(true);
    // A turn's card with no changes yet: nothing to approve.
    expect(waitsForPerson(surface('a', 'change', { summary: 'Turn 1, still running: no changes.', files: [] }))).toBe(false);
    expect(waitsForPerson(surface('p', 'decision', { question: 'q', state: 'waiting' }))).toBe(true);
    expect(waitsForPerson(surface('p', 'decision', { question: 'q', state: 'answered_in_terminal' }))).toBe(false);
    expect(waitsForPerson(surface('p', 'question', { question: 'q', state: 'waiting', answerable: false }))).toBe(false);
  });

  it('lists them across panes, newest first, with agent, pane and folder; a permission offers Approve and Deny', () => {
    const s1 = [surface('permission-e1', 'decision', { question: 'Allow Bash: ls?', options: [{ name: 'allow' }, { name: 'deny' }], state: 'waiting' }, { route: 'agent' })];
    const s2 = [surface('old', 'question', { question: 'Port?', options: [{ name: '80' }] }), surface('reply', 'response', { layman: 'x' })];
    s2[0]!.arrivedAt = '2025-01-01T00:00:00Z';
    const cards = inboxOf([pane('1', { agentCli: { name: 'claude' } }), pane('2', { command: ['codex'] })], (id) => (id === '1' ? s1 : s2));
    expect(cards.map((c) => [c.surfaceId, c.kind, c.agent, c.pane, c.folder])).toEqual([
      ['permission-e1', 'permission', 'claude', 'pane 1', '/src/1'],
      ['old', 'question', 'codex', 'pane 2', '/src/2'],
    ]);
    expect(cards[0]!.buttons).toEqual([{ label: 'Approve', action: 'choose', target: 'allow' }, { label: 'Deny', action: 'choose', target: 'deny' }]);
    expect(answerProblem(cards[0]!, 'choose', 'allow', undefined)).toBeUndefined();
    expect(answerProblem(cards[0]!, 'choose', 'deny', 'not that')).toBeUndefined();
    expect(answerProblem(cards[0]!, 'choose', 'maybe', undefined)).toContain('not one of this card\'s answers');
    expect(answerProblem(cards[0]!, 'answer', undefined, 'x')).toContain('takes no typed answer');
    expect(answerProblem(cards[1]!, 'answer', undefined, '  ')).toContain('write your answer');
    expect(answerProblem(cards[1]!, 'answer', undefined, '443')).toBeUndefined();
    expect(answerProblem(cards[1]!, 'dismiss', undefined, undefined)).toContain('not one of');
  });

  it('lists agents with their status and last lines', () => {
    const rows = agentsOf([pane('1', { agent: { status: 'blocked', since: 's', detail: 'Bash' } }), pane('2', { status: 'exited' }), pane('3', { kind: 'shell', command: ['bash'] })], (id) => `a\n\n${id}\nb   \n\n`);
    expect(rows).toEqual([
      { paneId: '1', agent: 'claude', title: 'pane 1', folder: '/src/1', status: 'blocked', detail: 'Bash', since: 's', lastLines: ['a', '1', 'b'] },
      { paneId: '2', agent: 'claude', title: 'pane 2', folder: '/src/2', status: 'ended', lastLines: ['a', '2', 'b'] },
    ]);
  });

  it('names an agent\'s pane without the spinner glyph its title carries while it works, as the window does', () => {
    const working = pane('1', { title: '\u2733 Fix the cache', agent: { status: 'working', since: 's' } });
    expect(agentsOf([working], () => '')[0]!.title).toBe('Fix the cache');
    expect(inboxOf([working], () => [surface('q', 'question', { question: 'Which?', options: [{ name: 'a' }] })])[0]!.pane).toBe('Fix the cache');
  });
});

describe('who a pane is', () => {
  it('names the agent CLI, else the program past env and its settings', () => {
    expect(programOf({ agentCli: { name: 'codex' }, command: ['node', 'x'], title: 't' })).toBe('codex');
    expect(programOf({ command: ['/usr/bin/env', '-i', 'A=1', '/bin/bash', '-c', 'x'], title: 't' })).toBe('bash');
    expect(programOf({ command: [], title: 'the title' })).toBe('the title');
  });
});

describe('the door\'s address', () => {
  it('takes HOST, HOST:PORT and [V6]:PORT; refuses all interfaces unless confirmed and names that are not addresses', () => {
    expect(parseAddress('127.0.0.1:9443')).toEqual({ address: '127.0.0.1', port: 9443 });
    expect(parseAddress('100.101.102.103')).toEqual({ address: '100.101.102.103', port: 8443 });
    expect(parseAddress('[::1]:7443')).toEqual({ address: '::1', port: 7443 });
    expect(parseAddress('10.0.0.2', '70000')).toBe('port "70000" is not usable: give a whole number from 1 to 65535');
    expect(checkAddress('0.0.0.0')).toContain('--all-interfaces');
    expect(checkAddress('0.0.0.0', true)).toBeUndefined();
    expect(checkAddress('phone.local')).toContain('not an IP address');
    expect(checkAddress('')).toContain('give the address');
  });
});
