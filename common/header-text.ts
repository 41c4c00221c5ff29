/**
 * The words of a pane's header, pure: its title, its folder shortened, its exit status and
 * its last command's mark. PaneHeader draws them, and so does a window's first paint
 * (common/first-paint.ts), so the two say the same.
 */
import type { PaneInfo } from '../preload/contract.ts';
import { commandText, durationText } from './command-text.ts';
import { titleName, visibleText } from './visible.ts';

/** The title a header shows (the program's, an agent's spinner glyph dropped, else its command, else "Terminal"), its folder, and whether the folder is worth showing beside it. */
export function headerTitle(pane: Pick<PaneInfo, 'title' | 'command' | 'cwd'> | undefined): { title: string; cwd: string; showCwd: boolean } {
  const title = visibleText(titleName(pane?.title ?? '') || pane?.command.join(' ') || 'Terminal');
  const cwd = pane?.cwd ?? '';
  return { title, cwd, showCwd: folderAdds(title, cwd) };
}

/** Whether a folder says more beside a pane's title: not when there is none, or the title already ends with it (a shell's title is often its folder). */
export function folderAdds(title: string, folder: string): boolean {
  return !!folder && !title.endsWith(folder);
}

/** What follows a pane's title for its folder: " · …/its/folder", or "" when the title says it already (folderAdds) or there is none. */
export function folderAfter(title: string, folder: string | undefined): string {
  return folder && folderAdds(title, folder) ? ` · ${shortPath(folder)}` : '';
}

/** Exit status in words: "exited 3", "exited", "killed by signal 9", "ended by service stop" (the service ended it as it went), or "ended" (came back ended). */
export function exitText(pane: Pick<PaneInfo, 'status' | 'exitCode' | 'signal' | 'ended' | 'endedBy'>): string {
  if (pane.status !== 'exited') return '';
  if (pane.ended) return 'ended';
  if (pane.endedBy) return `ended by ${pane.endedBy}`;
  if (pane.signal) return `killed by signal ${pane.signal}`;
  return pane.exitCode === undefined ? 'exited' : `exited ${pane.exitCode}`;
}

/** The header's dot: `live` while the process runs, `ok` once it exited 0, `bad` for another code or a signal (bash ended by SIGHUP reports code 0 and signal 1). */
export function statusDot(pane: Pick<PaneInfo, 'status' | 'exitCode' | 'signal'> | undefined): 'live' | 'ok' | 'bad' {
  if (pane?.status !== 'exited') return 'live';
  return pane.exitCode === 0 && !pane.signal ? 'ok' : 'bad';
}

/** The last two segments of a path, for a header that has little room. */
export function shortPath(p: string): string {
  const parts = p.split('/').filter(Boolean);
  if (parts.length <= 2) return p || '/';
  return `…/${parts.slice(-2).join('/')}`;
}

/** The last command's mark in the header: "✓ 1.2 s" or "✗ 2 · 1.2 s", and the words a tooltip and a screen reader get. */
export function lastCommandParts(lc: NonNullable<PaneInfo['lastCommand']>): { text: string; label: string } {
  const d = durationText(lc.durationMs);
  const text = lc.exitCode === 0 ? `✓ ${d}` : `✗ ${lc.exitCode}${d ? ` · ${d}` : ''}`;
  return { text: text.trim(), label: `Last command: ${commandText(lc.exitCode, lc.durationMs)}` };
}
