/**
 * The real `git` binary, run without a shell: argv in, exit code and text out. Reads
 * run with GIT_OPTIONAL_LOCKS=0 (a `git status` here never takes the index lock an
 * agent's own git may want) and LC_ALL=C (messages we read are git's English ones).
 */
import { spawn } from 'node:child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text for git's stdin (a patch). */
  input?: string;
  /** Extra environment on top of `env` (GIT_INDEX_FILE for the changes diff). */
  extraEnv?: Record<string, string>;
  timeoutMs?: number;
}

/** Thrown when git itself cannot be started: one sentence, what to do. */
export class GitMissingError extends Error {}

export const GIT_MISSING = 'git was not found on PATH: install git (for example `apt-get install git`), then try again';

/** Environment for git: the app's, minus variables that would point git at another repository. */
export function gitEnv(env: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, LC_ALL: 'C', LANGUAGE: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', ...extra };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX']) if (!(k in extra)) delete out[k];
  return out;
}

/** Run `git <args>` in `cwd`. Resolves with the exit code (never rejects on a non-zero one). */
export function git(args: string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn('git', args, { cwd: opts.cwd, env: gitEnv(opts.env, opts.extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      reject((e as NodeJS.ErrnoException).code === 'ENOENT' ? new GitMissingError(GIT_MISSING) : e);
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      reject(e.code === 'ENOENT' ? new GitMissingError(GIT_MISSING) : e);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => { /* git may exit before reading all of it */ });
    child.stdin.end(opts.input ?? '');
  });
}

/** git's own complaint, cut to its first meaningful line ("fatal: …" without the prefix). */
export function gitReason(r: GitResult): string {
  const line = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).find((l) => l && !/^hint:/.test(l)) ?? `git exited with ${r.code}`;
  return line.replace(/^(fatal|error):\s*/i, '').replace(/\.$/, '');
}
