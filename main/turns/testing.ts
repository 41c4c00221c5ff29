/** Helpers for turn tests: a test's own HOME and XDG folders, and git with a fixed identity. */
import path from 'node:path';
import { tempState } from '../panes/testing.ts';
import { gitTestEnv } from '../worktrees/testing.ts';

export function turnsTestEnv(): { dir: string; env: NodeJS.ProcessEnv; state: string; cleanup(): void } {
  const t = tempState('td-turns-');
  const env = gitTestEnv({
    ...t.env,
    XDG_CONFIG_HOME: path.join(t.dir, 'config'), XDG_CACHE_HOME: path.join(t.dir, 'cache'), XDG_DATA_HOME: path.join(t.dir, 'data'), XDG_RUNTIME_DIR: path.join(t.dir, 'run'),
  }, t.dir);
  return { dir: t.dir, env, state: path.join(t.dir, 'state', 'terminal-delight'), cleanup: t.cleanup };
}
