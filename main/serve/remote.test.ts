import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '../../preload/contract.ts';
import { tempState } from '../panes/testing.ts';
import { startService, type RunningService } from '../service/service.ts';
import { startServe, type Served } from './server.ts';

let there: ReturnType<typeof tempState>;
let here: ReturnType<typeof tempState>;
let service: RunningService | undefined;
let served: Served | undefined;

beforeEach(() => {
  there = tempState();
  here = tempState();
});
afterEach(async () => {
  await served?.close();
  await service?.stop('test over');
  served = undefined;
  service = undefined;
  there.cleanup();
  here.cleanup();
});

describe('serve with --service-socket and --service-token (a service elsewhere, its socket forwarded)', () => {
  it('relays windows to that service, and starts none of its own', async () => {
    const r = await startService({ env: there.env, fresh: true, idleMs: 0 });
    if (!r.started) throw new Error('no service');
    service = r.service;
    // A copy of the remote token, as `scp` would bring it.
    const token = path.join(here.dir, 'remote.token');
    fs.copyFileSync(service.paths.serviceToken, token);
    served = await startServe({ env: here.env, cwd: here.dir, service: { socketPath: service.paths.serviceSocket, tokenFile: token } });
    const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws?token=${served.token}`, { origin: `http://127.0.0.1:${served.port}` });
    const answer = await new Promise<ServerFrame>((resolve, reject) => {
      ws.on('open', () => ws.send(JSON.stringify({ t: 'req', id: 1, name: 'service.info', req: {} })));
      ws.on('message', (m) => {
        const f = JSON.parse(m.toString()) as ServerFrame;
        if (f.t === 'res') resolve(f);
      });
      ws.on('error', reject);
    });
    ws.close();
    expect(answer).toMatchObject({ t: 'res', id: 1, ok: true, res: { pid: process.pid } });
    // Nothing was started in this machine's own state folder.
    expect(fs.existsSync(path.join(here.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'))).toBe(false);
  });

  it('says so in one sentence when the forwarded socket does not answer, starting nothing', async () => {
    const token = path.join(here.dir, 'remote.token');
    fs.writeFileSync(token, 'ab'.repeat(32));
    await expect(startServe({ env: here.env, cwd: here.dir, service: { socketPath: path.join(here.dir, 'gone.sock'), tokenFile: token } }))
      .rejects.toThrow(/^nothing answers on .*gone\.sock: check that the SSH forward runs and that Terminal Delight's service runs on the other side$/);
    expect(fs.existsSync(path.join(here.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'))).toBe(false);
  });
});
