// The service's bundle: built by scripts/build.mjs, and what every entry point's spawnService
// starts once it is current, with the core's V8 flags.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../main/panes/testing.ts';
import { connectService, CORE_V8_FLAGS, serviceCommand, stopService } from '../main/service/client.ts';

const root = path.resolve(import.meta.dirname, '..');
const bundle = path.join(root, 'out', 'service', 'service.mjs');

describe('the service bundle', () => {
  it('is built by build.mjs --service, and the service started from it runs panes', async () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--service'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.statSync(bundle).size).toBeGreaterThan(100_000);
    // Current (no source is newer), so it is what a client starts, with the flags.
    const cmd = serviceCommand();
    expect(cmd.args).toEqual([...CORE_V8_FLAGS, bundle]);

    const st = tempState();
    try {
      const conn = await connectService({ env: st.env, client: 'cli', cwd: st.dir, fresh: true });
      const cmdline = fs.readFileSync(`/proc/${conn.hello.pid}/cmdline`, 'utf8').split('\0');
      expect(cmdline).toContain(bundle);
      expect(cmdline).toContain('--max-semi-space-size=8');
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
});
