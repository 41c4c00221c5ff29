/** The launcher started by hand, or with no host to dial: one clear sentence, exit 127. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const LAUNCHER = path.join(import.meta.dirname, 'launcher.mjs');

it('explains itself when started without the host', () => {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('TICKLOOP_')) delete env[k];
  const r = spawnSync(process.execPath, [LAUNCHER, '/bin/true'], { env, encoding: 'utf8' });
  expect(r.status).toBe(127);
  expect(r.stderr).toMatch(/started by the Tick host, not by hand/);
});

it('says so when the host socket is not there', () => {
  const r = spawnSync(process.execPath, [LAUNCHER, '/bin/true'], { env: { ...process.env, TICKLOOP_SOCKET: '/nonexistent/td.sock', TICKLOOP_TOKEN: 'x' }, encoding: 'utf8' });
  expect(r.status).toBe(127);
  expect(r.stderr).toMatch(/the Tick host's socket failed \(.*ENOENT/);
});
