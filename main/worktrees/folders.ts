/** Where worktrees go: the folder the setting names, else beside the repository, never inside it. Pure. */
import path from 'node:path';

/** The folder worktrees go in: the setting (absolute, or ~/…), else `<repo>.worktrees` beside the repository. */
export function worktreesFolder(setting: string, repo: string, home: string): string {
  const s = setting.trim();
  if (!s) return path.join(path.dirname(repo), `${path.basename(repo)}.worktrees`);
  if (s === '~') return home;
  if (s.startsWith('~/')) return path.join(home, s.slice(2));
  return path.resolve(s);
}

/** Whether `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

