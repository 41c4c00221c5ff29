import { describe, expect, it } from 'vitest';
import { agentOf, isShell, resumeArgv } from './resume.ts';

describe('what a resumed pane runs', () => {
  it('a shell or any other program: the same argv', () => {
    expect(resumeArgv(['/bin/bash', '-l'])).toEqual(['/bin/bash', '-l']);
    expect(isShell(['/bin/bash', '-l'])).toBe(true);
    expect(isShell(['-zsh'])).toBe(true);
    expect(resumeArgv(['/usr/bin/python3', 'serve.py', '--port', '8000'])).toEqual(['/usr/bin/python3', 'serve.py', '--port', '8000']);
    expect(isShell(['python3'])).toBe(false);
  });

  it('Claude Code: --resume with the session the app gave it, keeping its other flags', () => {
    expect(agentOf(['/home/ada/.local/bin/claude', '--model', 'opus'])).toBe('claude');
    expect(resumeArgv(['claude', '--session-id', '3f0c', '--model', 'opus'])).toEqual(['claude', '--resume', '3f0c', '--model', 'opus']);
    // A session id its hooks reported wins over none in argv.
    expect(resumeArgv(['claude', '--model', 'opus'], { name: 'claude', sessionId: 'abc' })).toEqual(['claude', '--resume', 'abc', '--model', 'opus']);
    // Nothing known: started again as it was.
    expect(resumeArgv(['claude', '--model', 'opus'], { name: 'claude' })).toEqual(['claude', '--model', 'opus']);
  });

  it('Codex: codex resume <id> with its flags, the first prompt not sent again', () => {
    expect(resumeArgv(['codex', '-m', 'gpt-5', 'fix the build'], { name: 'codex', sessionId: 'rollout-1' })).toEqual(['codex', 'resume', '-m', 'gpt-5', 'rollout-1']);
  });
});
