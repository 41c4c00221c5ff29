import { describe, expect, it } from 'vitest';
import { exitText, folderAdds, folderAfter, headerTitle, lastCommandParts, shortPath, statusDot } from './header-text.ts';

describe('statusDot', () => {
  it('is live while the process runs, ok only for an exit 0, bad for a signal (exit code 0 or not) or another code', () => {
    expect(statusDot(undefined)).toBe('live');
    expect(statusDot({ status: 'running' })).toBe('live');
    expect(statusDot({ status: 'exited', exitCode: 0 })).toBe('ok');
    expect(statusDot({ status: 'exited', exitCode: 0, signal: 1 })).toBe('bad');
    expect(statusDot({ status: 'exited', exitCode: 3 })).toBe('bad');
    expect(statusDot({ status: 'exited' })).toBe('bad');
  });
});

describe('exitText', () => {
  it('says nothing while the process runs', () => {
    expect(exitText({ status: 'running' })).toBe('');
  });
  it('gives the exit code, or the signal that ended it', () => {
    expect(exitText({ status: 'exited', exitCode: 3 })).toBe('exited 3');
    expect(exitText({ status: 'exited', exitCode: 0 })).toBe('exited 0');
    expect(exitText({ status: 'exited' })).toBe('exited');
    expect(exitText({ status: 'exited', exitCode: 0, signal: 9 })).toBe('killed by signal 9');
  });
  it('says what ended it when the service did, as it stopped, not the hang-up signal', () => {
    expect(exitText({ status: 'exited', exitCode: 0, signal: 1, endedBy: 'service stop' })).toBe('ended by service stop');
    expect(exitText({ status: 'exited', ended: { reason: 'the service was stopped', at: '', resumeArgv: [] } })).toBe('ended');
  });
});

describe('headerTitle', () => {
  it('names the pane by its title without the spinner glyph an agent puts before it, else by its command', () => {
    expect(headerTitle({ title: '✳ Fix the cache', command: ['claude'], cwd: '/src' }).title).toBe('Fix the cache');
    expect(headerTitle({ title: '⠋ Claude Code', command: ['claude'], cwd: '/src' }).title).toBe('Claude Code');
    expect(headerTitle({ title: '✶', command: ['claude', '--resume'], cwd: '/src' }).title).toBe('claude --resume');
    expect(headerTitle({ title: 'vim ✳ notes', command: ['vim'], cwd: '/src' }).title).toBe('vim ✳ notes');
  });
});

describe('folderAdds', () => {
  it('shows a folder beside a title that does not already end with it', () => {
    expect(folderAdds('vim notes', '/src/app')).toBe(true);
    expect(folderAdds('/src/app', '/src/app')).toBe(false);
    expect(folderAdds('ada@box: /src/app', '/src/app')).toBe(false);
    expect(folderAdds('bash', '')).toBe(false);
    expect(headerTitle({ title: '/src/app', command: ['bash'], cwd: '/src/app' }).showCwd).toBe(false);
    expect(headerTitle({ title: 'vim', command: ['vim'], cwd: '/src/app' }).showCwd).toBe(true);
    expect(folderAfter('vim', '/home/ada/src/app')).toBe(' · …/src/app');
    expect(folderAfter('/home/ada/src/app', '/home/ada/src/app')).toBe('');
    expect(folderAfter('vim', undefined)).toBe('');
  });
});

describe('shortPath', () => {
  it('keeps short paths and shortens long ones to their last two folders', () => {
    expect(shortPath('/')).toBe('/');
    expect(shortPath('')).toBe('/');
    expect(shortPath('/tmp')).toBe('/tmp');
    expect(shortPath('/home/ada')).toBe('/home/ada');
    expect(shortPath('/home/ada/src/terminal-delight')).toBe('…/src/terminal-delight');
  });
});

describe('lastCommandParts', () => {
  it('shows a tick and the time for success, the status and the time for a failure', () => {
    expect(lastCommandParts({ exitCode: 0, durationMs: 1234, at: '2026-01-01T00:00:00Z' })).toEqual({ text: '✓ 1.2 s', label: 'Last command: exit 0 · 1.2 s' });
    expect(lastCommandParts({ exitCode: 130, durationMs: 65_000, at: '2026-01-01T00:00:00Z' })).toEqual({ text: '✗ 130 · 1 min 5 s', label: 'Last command: exit 130 · 1 min 5 s' });
  });
});
