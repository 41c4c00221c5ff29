/** Helpers for turn tests: a test's own HOME and XDG folders, and git with a fixed identity. */
import fs from 'node:fs';
import path from 'node:path';
import { tempState } from '../panes/testing.ts';
import { gitSync, gitTestEnv } from '../worktrees/testing.ts';

export function turnsTestEnv(): { dir: string; env: NodeJS.ProcessEnv; state: string; cleanup(): void } {
  const t = tempState('td-turns-');
  const env = gitTestEnv({
    ...t.env,
    XDG_CONFIG_HOME: path.join(t.dir, 'config'), XDG_CACHE_HOME: path.join(t.dir, 'cache'), XDG_DATA_HOME: path.join(t.dir, 'data'), XDG_RUNTIME_DIR: path.join(t.dir, 'run'),
  }, t.dir);
  return { dir: t.dir, env, state: path.join(t.dir, 'state', 'terminal-delight'), cleanup: t.cleanup };
}

/**
 * An agent-like program for turn tests (Node, reading its terminal line by line), which
 * runs the real hook as Claude Code does: `prompt <text>` runs it with a UserPromptSubmit
 * payload, `stop` with a Stop payload (each waits for the hook, as the agent does), `do
 * <shell command>` edits files; every other line (what the window types back) is
 * appended to `$AGENT_LOG`.
 */
export const TURN_AGENT_SOURCE = `
import { execFileSync, execSync } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
const hook = (payload) => execFileSync('sh', [process.env.TURN_HOOK, '--agent', 'claude'], { input: JSON.stringify({ session_id: 'sess-1', transcript_path: '', cwd: process.cwd(), ...payload }), stdio: ['pipe', 'ignore', 'ignore'] });
process.stdout.write('agent ready\\n');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.startsWith('prompt ')) { hook({ hook_event_name: 'UserPromptSubmit', prompt: line.slice(7) }); process.stdout.write('prompted\\n'); }
  else if (line === 'stop') { hook({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' }); process.stdout.write('stopped\\n'); }
  else if (line.startsWith('do ')) {
    try { execSync(line.slice(3), { stdio: 'ignore', shell: '/bin/sh' }); process.stdout.write('did it\\n'); }
    catch (e) { process.stdout.write('failed: ' + e.message + '\\n'); }
  } else if (line.trim()) fs.appendFileSync(process.env.AGENT_LOG, line + '\\n');
});
`;

/** What a person's repository looks like from outside, but its files: the index's bytes, HEAD, the stash, branches and tags. */
export function repoLooks(repo: string, env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    index: fs.readFileSync(path.join(repo, '.git', 'index')).toString('base64'),
    head: gitSync(['rev-parse', 'HEAD'], repo, env),
    stash: gitSync(['stash', 'list'], repo, env),
    refs: gitSync(['for-each-ref', 'refs/heads', 'refs/tags', 'refs/stash'], repo, env),
  };
}
