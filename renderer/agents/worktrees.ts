/**
 * The window's view of the worktrees the app made (for the agents list, so none is
 * left behind unseen) and whether the "New agent in a worktree" dialog shows. Fed by
 * 'worktree.list' and the 'worktree.changed' event.
 */
import { createStore } from 'zustand/vanilla';
import type { PaneInfo, TdApi, WorktreeInfo } from '../../preload/contract.ts';

export interface WorktreesUi {
  list: WorktreeInfo[];
  dialog: boolean;
  /** Rises each time the dialog is asked for (a shortcut while it shows refocuses it). */
  dialogN: number;
}

export const worktreesUi = createStore<WorktreesUi>()(() => ({ list: [], dialog: false, dialogN: 0 }));

export function showWorktreeDialog(): void {
  worktreesUi.setState((s) => ({ dialog: true, dialogN: s.dialogN + 1 }));
}

export function hideWorktreeDialog(): void {
  worktreesUi.setState({ dialog: false });
}

/** Load the list now and follow its changes; returns the unsubscribe. */
export function followWorktrees(api: TdApi): () => void {
  const off = api.on('worktree.changed', (e) => worktreesUi.setState({ list: e.worktrees }));
  api.invoke('worktree.list', {}).then((list) => worktreesUi.setState({ list }), () => undefined);
  return off;
}

/** Worktrees no pane of this window works in (left behind, or their pane closed). */
export function withoutPane(list: readonly WorktreeInfo[], panes: Record<string, PaneInfo>): WorktreeInfo[] {
  return list.filter((w) => !w.paneId || !panes[w.paneId]);
}

/** "↑2 ↓1" — commits ahead of and behind the base; '' when level. */
export function aheadBehindText(w: { ahead: number; behind: number }): string {
  return [w.ahead ? `↑${w.ahead}` : '', w.behind ? `↓${w.behind}` : ''].filter(Boolean).join(' ');
}

/** The header's tooltip for a pane's worktree. */
export function worktreeTip(w: { branch: string; base: string; ahead: number; behind: number; path: string }): string {
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const apart = w.ahead || w.behind ? `${plural(w.ahead, 'commit')} ahead of ${w.base}, ${plural(w.behind, 'commit')} behind` : `level with ${w.base}`;
  return `Worktree on branch ${w.branch} (from ${w.base}): ${apart}. ${w.path}`;
}
