import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '../../preload/contract.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { startService, type RunningService } from '../service/service.ts';
import { startServe, type Served } from './server.ts';
import { get } from './testing.ts';

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
    // A frame for another machine (docs/spec/remote.md) is passed on too, and answered by the service.
    const via = await new Promise<unknown>((resolve) => {
      ws.on('message', (msg) => {
        const f = JSON.parse(msg.toString()) as { t: string };
        if (f.t === 'via') resolve(f);
      });
      ws.send(JSON.stringify({ t: 'via', m: 'nowhere', f: { t: 'req', id: 2, name: 'service.info', req: {} } }));
    });
    ws.close();
    expect(via).toEqual({ t: 'via', m: 'nowhere', f: { t: 'res', id: 2, ok: false, error: 'no machine is named "nowhere": connect it with `terminal-delight connect HOST`' } });
    expect(answer).toMatchObject({ t: 'res', id: 1, ok: true, res: { pid: process.pid } });
    // Nothing was started in this machine's own state folder.
    expect(fs.existsSync(path.join(here.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'))).toBe(false);
  });

  it('sends index.html with the first paint the service elsewhere draws, in the theme the browser hints', async () => {
    const r = await startService({ env: there.env, fresh: true, idleMs: 0 });
    if (!r.started) throw new Error('no service');
    service = r.service;
    const paneId = service.app.panes.create({ cwd: there.dir }).id;
    service.app.panes.write(paneId, `printf 'far-%s\\n' away\r`);
    await waitFor(() => /^far-away/m.test(service!.app.panes.screenText(paneId)), 'the printf on the far side');
    const token = path.join(here.dir, 'remote.token');
    fs.copyFileSync(service.paths.serviceToken, token);
    const renderer = path.join(here.dir, 'renderer');
    fs.mkdirSync(renderer, { recursive: true });
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>\n<html lang="en">\n  <body>\n    <div id="root"></div>\n  </body>\n</html>\n');
    served = await startServe({ env: here.env, cwd: here.dir, rendererDir: renderer, service: { socketPath: service.paths.serviceSocket, tokenFile: token } });
    const cookie = { Cookie: `td_token=${served.token}` };
    const page = await get(served.port, '/', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'light' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="en" data-theme="light">');
    expect(page.body).toContain(`data-first-paint-pane="${paneId}"`);
    expect(page.body).toContain('far-away');
    // `?first-paint=off` and HEAD: the theme alone; no hint and no setting: the page as it is.
    const off = await get(served.port, '/?first-paint=off', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'dark' });
    expect(off.body).toContain('data-theme="dark"');
    expect(off.body).not.toContain('td-first-paint');
    const head = await get(served.port, '/', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'dark' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(off.body)));
    expect((await get(served.port, '/', cookie)).body).not.toContain('data-theme');
  });

  it('says so in one sentence when the forwarded socket does not answer, starting nothing', async () => {
    const token = path.join(here.dir, 'remote.token');
    fs.writeFileSync(token, 'ab'.repeat(32));
    await expect(startServe({ env: here.env, cwd: here.dir, service: { socketPath: path.join(here.dir, 'gone.sock'), tokenFile: token } }))
      .rejects.toThrow(/^nothing answers on .*gone\.sock: check that the SSH forward runs and that Terminal Delight's service runs on the other side$/);
    expect(fs.existsSync(path.join(here.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'))).toBe(false);
  });
});
