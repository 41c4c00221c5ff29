/** Helpers for worktree tests: real repositories in temp folders, git with its own identity and no global config. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The environment git runs with in tests: a fixed identity, no system or global config of the machine's. */
export function gitTestEnv(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const global = path.join(dir, 'gitconfig');
  fs.writeFileSync(global, '[init]\n\tdefaultBranch = main\n');
  return {
    ...env,
    GIT_AUTHOR_NAME: 'Ada Tester', GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Tester', GIT_COMMITTER_EMAIL: 'ada@example.com',
    GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: global,
  };
}

/** Run git synchronously (for setting scenes up), returning stdout. */
export function gitSync(args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository on `main` with one commit: a.txt (thirty lines), .gitignore (.env, secrets/), and the untracked files given. */
export function makeRepo(dir: string, env: NodeJS.ProcessEnv, untracked: Record<string, string> = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  gitSync(['init', '-q', '-b', 'main'], dir, env);
  fs.writeFileSync(path.join(dir, 'a.txt'), `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`);
  fs.writeFileSync(path.join(dir, '.gitignore'), '.env\nsecrets/\nbuild/\n');
  gitSync(['add', '.'], dir, env);
  gitSync(['commit', '-q', '-m', 'First'], dir, env);
  for (const [name, text] of Object.entries(untracked)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/**
 * An agent-like program (Node, reading its terminal line by line): a line `do <shell
 * command>` runs the command in its folder (it edits files, as agents do); every other
 * line, such as the bench's action lines, is appended to `$AGENT_LOG`.
 */
export const AGENT_SOURCE = `
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
process.stdout.write('agent ready in ' + process.cwd() + '\\n');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.startsWith('do ')) {
    try { execSync(line.slice(3), { stdio: 'ignore', shell: '/bin/sh' }); process.stdout.write('did it\\n'); }
    catch (e) { process.stdout.write('failed: ' + e.message + '\\n'); }
  } else if (line.trim()) {
    fs.appendFileSync(process.env.AGENT_LOG, line + '\\n');
  }
});
`;
