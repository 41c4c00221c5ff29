/**
 * The compile cache (main/compile-cache.ts) in real child processes: a process that turns it
 * on and then loads a module leaves V8's code for it in the user's cache folder (made 0700),
 * the next one starts from it, and NODE_DISABLE_COMPILE_CACHE=1 leaves nothing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileCacheDir } from './compile-cache.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  scripts = undefined;
});

/** A folder with a module to load, and a script that turns the cache on and loads it; run with `env`. */
let scripts: string | undefined;
function runChild(env: NodeJS.ProcessEnv): { status: number | null; out: string; err: string } {
  // The same module each time (the cache is kept by its path and source).
  const dir = (scripts ??= fs.mkdtempSync(path.join(os.tmpdir(), 'td-compile-cache-')));
  if (!dirs.includes(dir)) dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'big.mjs'), `export const values = [${Array.from({ length: 2000 }, (_, i) => `(x) => x * ${i} + ${i % 7}`).join(', ')}];\n`);
  const script = path.join(dir, 'start.mts');
  fs.writeFileSync(script, `import { useCompileCache } from ${JSON.stringify(path.resolve(import.meta.dirname, 'compile-cache.ts'))};\nconst where = useCompileCache();\nconst m = await import('./big.mjs');\nconsole.log(JSON.stringify({ where, n: m.values.length }));\n`);
  const r = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings', script], { env, encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** Every file under `dir`. */
function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('the compile cache', () => {
  it('keeps V8\'s code in the user\'s own cache folder, made 0700, for the next start', () => {
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'td-cache-home-'));
    dirs.push(cacheHome);
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cacheHome };
    delete env.NODE_DISABLE_COMPILE_CACHE;
    delete env.NODE_COMPILE_CACHE;
    const want = compileCacheDir(env);
    expect(want).toBe(path.join(cacheHome, 'terminal-delight', 'compile-cache'));
    const first = runChild(env);
    expect(first.status, first.err).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ where: want, n: 2000 });
    expect(fs.statSync(want).mode & 0o777).toBe(0o700);
    const cached = files(want);
    expect(cached.length).toBeGreaterThan(0);
    const size = cached.reduce((n, f) => n + fs.statSync(f).size, 0);
    expect(size).toBeGreaterThan(1000);
    // A second start takes V8's code from it (Node says so with NODE_DEBUG_NATIVE=COMPILE_CACHE).
    const second = runChild({ ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(second.status, second.err).toBe(0);
    expect(second.err).toMatch(/V8 code cache for ESM file:\/\/\S*big\.mjs was accepted/);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE=1: nothing is written', () => {
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'td-cache-home-'));
    dirs.push(cacheHome);
    const r = runChild({ ...process.env, XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.status, r.err).toBe(0);
    expect(JSON.parse(r.out).where).toBeUndefined();
    expect(files(path.join(cacheHome, 'terminal-delight'))).toEqual([]);
  });
});
