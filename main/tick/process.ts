/**
 * Starting and ending Tick processes: argv[0] resolved through PATH, the environment of
 * 4.1, and termination of a process group (SIGTERM, then SIGKILL after a grace). Also
 * the direct way to run a Tick (pipes, its own process group, no view), used by
 * `tick check`, the benchmark and tests; Ticks in panes go through launcher.mjs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { LIMITS } from './limits.ts';
import { type SessionOptions, TickSession } from './session.ts';

/** Resolve argv[0] to an absolute path through PATH (relative paths against cwd). Throws with a clear reason. */
export function resolveCommand(argv0: string, cwd: string, envPath: string | undefined): string {
  if (!argv0) throw new Error('the Tick command is empty; give the program to run, for example ["python3", "note.py"]');
  const runnable = (p: string) => {
    try {
      const st = fs.statSync(p);
      if (!st.isFile()) return false;
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (argv0.includes('/')) {
    const abs = path.resolve(cwd, argv0);
    if (runnable(abs)) return abs;
    throw new Error(`the Tick command "${argv0}" is not an executable file (looked at ${abs}); check the path and its execute permission`);
  }
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.resolve(cwd, dir, argv0);
    if (runnable(p)) return p;
  }
  throw new Error(`the Tick command "${argv0}" was not found on PATH; install it or give its absolute path`);
}

/** The Tick's environment (4.1): the user's, plus the three public variables. */
export function tickEnv(base: NodeJS.ProcessEnv, instanceId: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !k.startsWith('TICKLOOP_')) env[k] = v;
  return { ...env, TICKLOOP_INSTANCE_ID: instanceId, TERM: 'xterm-256color', COLORTERM: 'truecolor', ...extra };
}

/** Send SIGTERM to a process group, then SIGKILL after `graceMs` unless `alive()` says it is gone. */
export function terminateGroup(pgid: number, alive: () => boolean, graceMs: number = LIMITS.killGraceMs): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pgid, sig);
    } catch {
      // the group is gone already
    }
  };
  signal('SIGTERM');
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = setInterval(() => {
      if (!alive()) {
        clearInterval(tick);
        resolve();
      } else if (Date.now() - started >= graceMs) {
        clearInterval(tick);
        signal('SIGKILL');
        resolve();
      }
    }, 20);
  });
}

export interface DirectTick {
  child: ChildProcess;
  session: TickSession;
  /** Everything the Tick wrote to standard error (kept to 64 KiB). */
  stderr(): string;
  /** Resolves once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the group, SIGKILL after the grace; resolves when it has exited. */
  terminate(graceMs?: number): Promise<void>;
}

export interface DirectOptions extends SessionOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  instanceId?: string;
  /** Called with every chunk the host writes and the Tick writes (for wire captures and `tick check`). */
  wire?: (dir: 'in' | 'out', chunk: Buffer) => void;
}

/** Run a Tick with pipes for stdin, stdout and stderr, in its own process group. */
export function spawnDirect(command: string[], opts: DirectOptions = {}): DirectTick {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const file = resolveCommand(command[0] ?? '', cwd, env.PATH);
  const child = spawn(file, command.slice(1), {
    cwd,
    env: tickEnv(env, opts.instanceId ?? `direct-${process.pid}-${Date.now()}`),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let running = true;
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
    child.once('error', () => {
      running = false;
      resolve({ code: null, signal: null });
    });
  });
  const terminate = async (graceMs?: number): Promise<void> => {
    if (running && child.pid) await terminateGroup(child.pid, () => running, graceMs);
    await exited;
  };
  const session = new TickSession(
    {
      write(line) {
        const buf = Buffer.from(line + '\n', 'utf8');
        opts.wire?.('in', buf);
        if (child.stdin?.writable) child.stdin.write(buf);
      },
      kill() {
        void terminate();
      },
    },
    opts,
  );
  child.stdin?.on('error', () => {});
  child.stdout?.on('data', (chunk: Buffer) => {
    opts.wire?.('out', chunk);
    session.feed(chunk);
  });
  // Exit is reported once standard output is drained, so the last lines are judged first.
  let stdoutDone = false;
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const maybeEnd = () => {
    if (stdoutDone && exitInfo) session.exited(exitInfo.code, exitInfo.signal);
  };
  child.stdout?.on('end', () => {
    stdoutDone = true;
    maybeEnd();
  });
  child.stdout?.on('close', () => {
    stdoutDone = true;
    maybeEnd();
  });
  void exited.then((info) => {
    exitInfo = info;
    maybeEnd();
    // A grandchild may hold standard output open: the session ends with the Tick regardless.
    setTimeout(() => {
      stdoutDone = true;
      maybeEnd();
    }, 300).unref();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (err.length < 65536) err += chunk.toString('utf8');
  });
  return { child, session, stderr: () => err, exited, terminate };
}
