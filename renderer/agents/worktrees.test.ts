import { describe, expect, it } from 'vitest';
import type { PaneInfo, WorktreeInfo } from '../../preload/contract.ts';
import { aheadBehindText, withoutPane, worktreeTip } from './worktrees.ts';

const wt = (path: string, paneId?: string): WorktreeInfo => ({ path, repo: '/r', branch: path.slice(1), base: 'main', ahead: 0, behind: 0, createdAt: '', ...(paneId ? { paneId } : {}) });

describe('worktrees in the window', () => {
  it('lists the worktrees no pane of the window works in', () => {
    const panes = { p1: { id: 'p1' } as PaneInfo };
    expect(withoutPane([wt('/a', 'p1'), wt('/b'), wt('/c', 'gone')], panes).map((w) => w.path)).toEqual(['/b', '/c']);
  });

  it('says how far a branch and its base are apart', () => {
    expect(aheadBehindText({ ahead: 0, behind: 0 })).toBe('');
    expect(aheadBehindText({ ahead: 2, behind: 1 })).toBe('↑2 ↓1');
    expect(aheadBehindText({ ahead: 0, behind: 3 })).toBe('↓3');
    expect(worktreeTip({ branch: 'fix', base: 'main', ahead: 1, behind: 0, path: '/w/fix' })).toBe('Worktree on branch fix (from main): 1 commit ahead of main, 0 commits behind. /w/fix');
    expect(worktreeTip({ branch: 'fix', base: 'main', ahead: 0, behind: 0, path: '/w/fix' })).toBe('Worktree on branch fix (from main): level with main. /w/fix');
  });
});
