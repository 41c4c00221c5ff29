import { describe, expect, it } from 'vitest';
import { claude, claudeConfigDir, isClaude, projectKey, resumeArgv, transcriptPath, withSessionId } from './claude.ts';

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

describe('Claude Code resume', () => {
  it('resumes with --resume <id> and the original options, minus session flags and the prompt', () => {
    expect(resumeArgv(['claude', '--session-id', 'old', '--model', 'opus'], 'sid')).toEqual(['claude', '--resume', 'sid', '--model', 'opus']);
    expect(resumeArgv(['/opt/bin/claude', '--permission-mode=plan', '-c', 'fix the build'], 'sid')).toEqual(['/opt/bin/claude', '--resume', 'sid', '--permission-mode=plan']);
    expect(resumeArgv(['claude', '--resume', 'abc', '--add-dir', '/a', '/b', '--verbose'], 'sid')).toEqual(['claude', '--resume', 'sid', '--add-dir', '/a', '/b', '--verbose']);
    expect(resumeArgv(['claude', '-r', '--dangerously-skip-permissions'], 'sid')).toEqual(['claude', '--resume', 'sid', '--dangerously-skip-permissions']);
    expect(resumeArgv(['claude', '--', '--not-a-flag'], 'sid')).toEqual(['claude', '--resume', 'sid']);
  });
});

describe('Claude Code hook payloads', () => {
  let n = 0;
  const ctx = { id: (p: string) => `${p}-${++n}` };
  it('maps each hook to TDAC events; AskUserQuestion and PermissionRequest wait', () => {
    expect(claude.hook({ hook_event_name: 'SessionStart', session_id: 's1', transcript_path: '/t.jsonl', source: 'startup', cwd: '/w' }, ctx).events)
      .toEqual([{ type: 'session', id: expect.any(String), session_id: 's1', transcript_path: '/t.jsonl', source: 'startup', cwd: '/w' }]);
    const perm = claude.hook({ hook_event_name: 'PermissionRequest', session_id: 's1', tool_name: 'Bash', tool_input: { command: 'ls' } }, ctx);
    expect(perm.wait?.event).toMatchObject({ type: 'permission', tool_name: 'Bash', tool_input: { command: 'ls' } });
    expect(perm.wait?.accepts({ behavior: 'deny' })).toBe(true);
    expect(perm.wait?.accepts({ answers: {} })).toBe(false);
    expect(perm.wait?.output({ behavior: 'deny', message: 'no' })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no' } } });
    expect(claude.hook({ hook_event_name: 'PermissionRequest', tool_name: 'AskUserQuestion', tool_input: {} }, ctx)).toEqual({ events: [] });
    expect(claude.hook({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'x' }, tool_use_id: 'toolu_9' }, ctx).events)
      .toEqual([{ type: 'tool', id: expect.any(String), tool_name: 'Bash', tool_input: { command: 'x' }, tool_use_id: 'toolu_9', failed: true }]);
    const big = claude.hook({ hook_event_name: 'PermissionRequest', tool_name: 'Write', tool_input: { content: 'x'.repeat(20_000) } }, ctx);
    expect(big.wait?.event).toMatchObject({ truncated: true, tool_input: { text: expect.stringContaining('(cut at 16384 characters)') } });
    expect(claude.hook({ hook_event_name: 'Notification' }, ctx)).toEqual({ events: [] });
  });
  it('a tool run carries what the tool gave back as text (tool_output): Bash\'s stdout and stderr, a failure\'s error, a string; secrets out; cut; none for a structure without text', () => {
    const ran = (extra: Record<string, unknown>) => claude.hook({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' }, ...extra }, ctx).events[0] as Record<string, unknown>;
    expect(ran({ tool_response: { stdout: 'FAIL src/cache.test.ts', stderr: 'npm ERR! Test failed', interrupted: false, isImage: false } }).tool_output).toBe('FAIL src/cache.test.ts\nnpm ERR! Test failed');
    expect(ran({ tool_response: 'plain text result' }).tool_output).toBe('plain text result');
    expect(ran({ tool_response: { type: 'text', file: { filePath: '/w/a.ts', content: 'export const a = 1;' } } }).tool_output).toBe('export const a = 1;');
    expect(ran({ tool_response: { stdout: 'ANTHROPIC_API_KEY=sk-ant-api03-Qw7ErT9yUiOp3AsDfGhJkL' } }).tool_output).toBe('ANTHROPIC_API_KEY=[redacted]');
    expect(ran({ tool_response: { stdout: 'x'.repeat(20_000) } }).tool_output).toMatch(/\(cut at 16384 characters\)$/);
    expect(ran({ tool_response: { filePath: '/w/a.ts', structuredPatch: [{ lines: ['-a', '+b'] }] } })).not.toHaveProperty('tool_output');
    expect(ran({ tool_response: { stdout: '', stderr: '' } })).not.toHaveProperty('tool_output');
    const failed = claude.hook({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'make' }, error: 'make: *** [build] Error 2' }, ctx).events[0] as Record<string, unknown>;
    expect(failed).toMatchObject({ failed: true, tool_output: 'make: *** [build] Error 2' });
  });
});
