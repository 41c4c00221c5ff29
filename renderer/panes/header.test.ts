import { describe, expect, it } from 'vitest';
import { exitText, shortPath } from './PaneHeader.tsx';

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
