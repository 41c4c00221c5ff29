import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../main/panes/testing.ts';

const start = path.resolve(import.meta.dirname, 'start.mjs');

function launch(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [start, ...args], { env: { ...env, TD_SKIP_BUILD: '1', ELECTRON_OVERRIDE_DIST_PATH: path.join(env.XDG_STATE_HOME!, 'no-electron') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

describe('npm start', () => {
  it('says in one line that Electron is missing, starts serve, and stops on Ctrl-C', async () => {
    const st = tempState();
    try {
      const run = launch(['--no-open', '--fresh', '--cwd', st.dir], st.env);
      const line = await waitFor(() => /^serving (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})\n/.exec(run.out()), 'the serving line', 30_000);
      expect(run.err().split('\n').filter((l) => l.includes('Electron binary is missing'))).toHaveLength(1);
      const url = new URL(line[1]);
      const r = await fetch(`http://127.0.0.1:${url.port}/`, { redirect: 'manual' });
      expect(r.status).toBe(403);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    } finally {
      st.cleanup();
    }
  });

  it('with --serve, starts serve without the Electron line', async () => {
    const st = tempState();
    try {
      const run = launch(['--serve', '--no-open', '--fresh'], st.env);
      await waitFor(() => run.out().startsWith('serving '), 'the serving line', 30_000);
      expect(run.err()).not.toContain('Electron');
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      st.cleanup();
    }
  });
});
