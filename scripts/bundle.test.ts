// The service's bundle: built by scripts/build.mjs, and what every entry point's spawnService
// starts once it is current, with the core's V8 flags. serve's bundle: what `npm start` and
// `terminal-delight serve` run while it is current, the sources once one is newer.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../main/panes/testing.ts';
import { connectService, CORE_V8_FLAGS, serviceCommand, stopService } from '../main/service/client.ts';
// @ts-expect-error: a plain .mjs script without types
import { staleFiles } from './bundle.mjs';

const root = path.resolve(import.meta.dirname, '..');
const bundle = path.join(root, 'out', 'service', 'service.mjs');
const serveBundle = path.join(root, 'out', 'serve', 'serve.mjs');

/** `terminal-delight serve` (bin/, as a pane's PATH has it) in a temp state: its process's command line once it serves. */
async function serveCommandLine(st: ReturnType<typeof tempState>): Promise<string[]> {
  const child = spawn(path.join(root, 'bin', 'terminal-delight'), ['serve', '--port', '0', '--fresh', '--no-open', '--cwd', st.dir], { env: { ...st.env, TD_NODE: process.execPath }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  try {
    await waitFor(() => /^serving http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}\n/.test(out) || child.exitCode !== null, 'the serving line', 60_000);
    expect(out, err).toMatch(/^serving /);
    return fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await stopService({ env: st.env });
  }
}

describe('a bundle\'s folder after a build', () => {
  const stale = staleFiles as (present: string[], previous: string[], current: string[]) => string[];
  it('keeps this build\'s files and the previous build\'s chunks (a process that loaded the old entry still finds them), nothing older', () => {
    const previous = ['service.mjs', 'service-B.mjs', 'memory-B.mjs'];
    const current = ['service.mjs', 'service-C.mjs', 'memory-B.mjs'];
    const present = ['.build.json', 'service.mjs', 'service-A.mjs', 'service-B.mjs', 'service-C.mjs', 'memory-B.mjs', 'assets'];
    expect(stale(present, previous, current)).toEqual(['service-A.mjs', 'assets']);
    // The first build with a manifest: only its own files stay.
    expect(stale(present, [], current)).toEqual(['service-A.mjs', 'service-B.mjs', 'assets']);
  });
});

describe('the service bundle', () => {
  it('is built by build.mjs --service, and the service started from it runs panes', async () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--service'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // The entry takes the lock, then loads the core: a chunk beside it (main/service/main.ts).
    const files = fs.readdirSync(path.dirname(bundle)).filter((f) => f.endsWith('.mjs'));
    expect(files.reduce((n, f) => n + fs.statSync(path.join(path.dirname(bundle), f)).size, 0)).toBeGreaterThan(100_000);
    // Current (no source is newer), so it is what a client starts, with the flags.
    const cmd = serviceCommand();
    expect(cmd.args).toEqual([...CORE_V8_FLAGS, bundle]);

    const st = tempState();
    try {
      const conn = await connectService({ env: st.env, client: 'cli', cwd: st.dir, fresh: true });
      const cmdline = fs.readFileSync(`/proc/${conn.hello.pid}/cmdline`, 'utf8').split('\0');
      expect(cmdline).toContain(bundle);
      for (const flag of CORE_V8_FLAGS) expect(cmdline).toContain(flag);
      expect(cmdline).not.toContain('--experimental-strip-types');
      const hello = await conn.request('app.hello', {});
      const paneId = hello.panes[0]!.id;
      await conn.request('pane.input', { paneId, data: 'echo from-the-bundle-$((6*7))\r' });
      await waitFor(async () => (await conn.request('pane.snapshot', { paneId })).data.includes('from-the-bundle-42'), 'the echo in the pane', 20_000);
      conn.close();
    } finally {
      await stopService({ env: st.env });
      st.cleanup();
    }
  }, 120_000);

  it('serve\'s bundle is run by terminal-delight serve while current, the sources once a source is newer', async () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--service'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const st = tempState();
    const built = fs.statSync(serveBundle).mtime;
    try {
      const current = await serveCommandLine(st);
      expect(current).toContain(serveBundle);
      expect(current).not.toContain('--experimental-strip-types');
      // Older than the sources (an edit since the build): the sources run, type-stripped.
      fs.utimesSync(serveBundle, new Date(0), new Date(0));
      const stale = await serveCommandLine(st);
      expect(stale).toContain(path.join(root, 'main', 'cli', 'main.ts'));
      expect(stale).toContain('--experimental-strip-types');
    } finally {
      fs.utimesSync(serveBundle, built, built);
      st.cleanup();
    }
  }, 180_000);
});
