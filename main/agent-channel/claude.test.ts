import { describe, expect, it } from 'vitest';
import { claudeConfigDir, isClaude, projectKey, statusAfter, transcriptPath, withSessionId } from './claude.ts';

describe('Claude Code session and transcript', () => {
  it('adds --session-id to Claude only, and only when it names no session', () => {
    expect(withSessionId(['claude'], 'u-1')).toEqual({ argv: ['claude', '--session-id', 'u-1'], sessionId: 'u-1' });
    expect(withSessionId(['/usr/local/bin/claude', '--model', 'opus'], 'u-1')).toEqual({ argv: ['/usr/local/bin/claude', '--session-id', 'u-1', '--model', 'opus'], sessionId: 'u-1' });
    expect(withSessionId(['claude', '--resume', 'abc'], 'u-1')).toEqual({ argv: ['claude', '--resume', 'abc'] });
    expect(withSessionId(['claude', '--session-id=abc'], 'u-1')).toEqual({ argv: ['claude', '--session-id=abc'] });
    expect(withSessionId(['codex'], 'u-1')).toEqual({ argv: ['codex'] });
    expect(isClaude(['claudette'])).toBe(false);
  });

  it('names the project folder as Claude Code does: every non-alphanumeric becomes -', () => {
    expect(projectKey('/home/ada/src/demo')).toBe('-home-ada-src-demo');
    expect(projectKey('/home/ada/.local/my_app v2')).toBe('-home-ada--local-my-app-v2');
    expect(projectKey('/tmp/déjà')).toBe('-tmp-d-j-');
    const long = `/${'a'.repeat(250)}`;
    expect(projectKey(long)).toMatch(new RegExp(`^-${'a'.repeat(199)}-[0-9a-z]+$`));
    expect(projectKey(long)).not.toBe(projectKey(`/${'a'.repeat(251)}`));
  });

  it('finds the transcript under ~/.claude or $CLAUDE_CONFIG_DIR', () => {
    expect(transcriptPath('/w/p', 'sid', { HOME: '/home/ada' })).toBe('/home/ada/.claude/projects/-w-p/sid.jsonl');
    expect(transcriptPath('/w/p', 'sid', { HOME: '/home/ada', CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg/projects/-w-p/sid.jsonl');
    expect(claudeConfigDir({ HOME: '/h', CLAUDE_CONFIG_DIR: 'relative' })).toBe('/h/.claude');
  });
});

describe('status after an event', () => {
  const at = '2026-11-30T01:00:00.000Z';
  it('prompt → working, question/permission → blocked, answer → working, reply → done, session → idle', () => {
    expect(statusAfter({ type: 'prompt', id: 'p', at, text: 'Add a dark theme' })).toEqual({ status: 'working', detail: 'Add a dark theme' });
    expect(statusAfter({ type: 'question', id: 'q', at, questions: [{ question: 'Which?', options: [], multiple: false }] })).toEqual({ status: 'blocked', detail: 'Which?' });
    expect(statusAfter({ type: 'permission', id: 'x', at, tool_name: 'Bash', tool_input: {} })).toEqual({ status: 'blocked', detail: 'permission for Bash' });
    expect(statusAfter({ type: 'answer', id: 'a', at, of: 'q' })).toEqual({ status: 'working' });
    expect(statusAfter({ type: 'reply', id: 'r', at, text: 'Done.' })).toEqual({ status: 'done', detail: 'Done.' });
    expect(statusAfter({ type: 'session', id: 's', at, source: 'startup' })).toEqual({ status: 'idle', detail: 'session startup' });
    expect(statusAfter({ type: 'unanswered', id: 'u', at, of: 'q', reason: 'timeout' })).toBeUndefined();
  });
});
