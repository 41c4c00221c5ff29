/**
 * V8's code for the modules a process loads from here on, kept on disk by Node's compile
 * cache (node:module enableCompileCache): from the second start on, the service and serve
 * do not compile their bundles and dependencies again. Kept per user, in
 * $XDG_CACHE_HOME/terminal-delight/compile-cache (else ~/.cache/...), made 0700: not in the
 * shared temporary folder Node would pick, where another user could leave entries. Node's
 * own NODE_DISABLE_COMPILE_CACHE=1 turns it off; a cache that cannot be made is no error.
 * Node writes the cache when the process exits; the service runs for days, so it writes it
 * a moment after it has started (persistCompileCacheSoon).
 */
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The folder the cache is kept in, from the environment. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(), '.cache');
  return path.join(base, 'terminal-delight', 'compile-cache');
}

/** Turn the cache on for what this process loads next; where it is kept, or undefined when it is off. */
export function useCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE || typeof module.enableCompileCache !== 'function') return undefined;
  const dir = compileCacheDir(env);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const r = module.enableCompileCache(dir);
    return r.directory ?? dir;
  } catch {
    return undefined;
  }
}

/** Write what was compiled so far to the cache `ms` from now (a long-lived process need not exit first). */
export function persistCompileCacheSoon(ms: number): void {
  if (typeof module.flushCompileCache !== 'function' || !module.getCompileCacheDir?.()) return;
  setTimeout(() => {
    try {
      module.flushCompileCache();
    } catch {
      // the next start compiles again
    }
  }, ms).unref();
}
