import { describe, expect, it } from 'vitest';
import { isInside, worktreesFolder } from '../main/worktrees/folders.ts';
import { commitMessage, folderName, madeUpName, nameFromPrompt, nameProblem } from './worktree-names.ts';

describe('worktree names', () => {
  it('takes a branch name from the first words of a prompt', () => {
    expect(nameFromPrompt('Fix the login bug!')).toBe('fix-the-login-bug');
    expect(nameFromPrompt('Élève: add café support to the menu and much more besides')).toBe('eleve-add-cafe-support-to-the');
    expect(nameFromPrompt('   ')).toBe('');
    expect(nameFromPrompt('!!!')).toBe('');
    expect(nameFromPrompt('a'.repeat(60))).toBe('');
  });

  it('makes one up', () => {
    expect(madeUpName(() => 0)).toBe('agent-aaaa');
    expect(madeUpName()).toMatch(/^agent-[a-z0-9]{4}$/);
  });

  it('refuses names git would refuse, in one sentence', () => {
    expect(nameProblem('fix/login')).toBeUndefined();
    expect(nameProblem('')).toMatch(/needs a name/);
    expect(nameProblem('-x')).toMatch(/not usable/);
    expect(nameProblem('a..b')).toMatch(/not usable/);
    expect(nameProblem('a.lock')).toMatch(/not usable/);
    expect(nameProblem('a b')).toMatch(/not usable/);
    expect(nameProblem('x'.repeat(101))).toMatch(/101 characters/);
  });

  it('puts worktrees beside the repository unless the setting says where', () => {
    expect(worktreesFolder('', '/src/app', '/home/ada')).toBe('/src/app.worktrees');
    expect(worktreesFolder('~/trees', '/src/app', '/home/ada')).toBe('/home/ada/trees');
    expect(worktreesFolder('/tmp/t', '/src/app', '/home/ada')).toBe('/tmp/t');
    expect(folderName('fix/login')).toBe('fix-login');
    expect(isInside('/src/app/x', '/src/app')).toBe(true);
    expect(isInside('/src/app', '/src/app')).toBe(true);
    expect(isInside('/src/app.worktrees', '/src/app')).toBe(false);
  });

  it('draws a commit message from the agent\'s last reply', () => {
    expect(commitMessage(undefined, 'fix')).toBe('Work on fix');
    expect(commitMessage('Fixed the **login** bug. The session cookie was never set.', 'fix')).toBe('Fixed the login bug\n\nFixed the **login** bug. The session cookie was never set.');
    expect(commitMessage('Done', 'fix')).toBe('Done');
    const long = commitMessage(`${'word '.repeat(30)}end.`, 'fix').split('\n')[0]!;
    expect(long.length).toBeLessThanOrEqual(72);
    expect(long.endsWith('…')).toBe(true);
  });
});
