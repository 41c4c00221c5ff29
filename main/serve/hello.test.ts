// A window that never says hello is let go (issue 35, item 13): a raw WebSocket that
// connects and says nothing is closed with the reason, at the service's own door and through
// serve's relay; a raw client of the service socket that says nothing gets a refusal line and
// is closed. Real doors, a real service; the test asserts the close, not when it came.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LOGIN_BASH, tempState, waitFor } from '../panes/testing.ts';
import { HELLO_WITHIN_MS, noHelloReason } from '../clients/hub.ts';
import { connectService, stopService } from '../service/client.ts';
import { statePaths } from '../paths.ts';
import { startServe } from './server.ts';

/** A raw window's socket at `port`: open, saying nothing. */
async function silent(port: number, token: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { headers: { Origin: `http://127.0.0.1:${port}` } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('error', () => undefined);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, closed };
}

const WAIT = HELLO_WITHIN_MS + 20_000;

describe('a window that never says hello', () => {
  it('is closed with the reason at a door whose core runs in the same process; a window that says hello stays', async () => {
    const st = tempState();
    const served = await startServe({ port: 0, fresh: true, cwd: st.dir, env: st.env });
    try {
      const quiet = await silent(served.port, served.token);
      const talking = await silent(served.port, served.token);
      // A window answers the core's pings (renderer/td-client.ts), or it is let go for that.
      talking.ws.on('message', (raw: Buffer, isBinary: boolean) => {
        if (!isBinary && (JSON.parse(raw.toString()) as { t?: string }).t === 'ping') talking.ws.send('{"t":"pong"}');
      });
      talking.ws.send(JSON.stringify({ t: 'req', id: 1, name: 'app.hello', req: {} }));
      const closed = await quiet.closed;
      expect(closed).toEqual({ code: 1008, reason: noHelloReason(HELLO_WITHIN_MS) });
      expect(talking.ws.readyState).toBe(WebSocket.OPEN);
      talking.ws.close();
    } finally {
      await served.close();
      st.cleanup();
    }
  }, WAIT + 30_000);

  it('is closed with the reason through serve\'s relay to the service; the service socket refuses a client that says nothing, in one sentence', async () => {
    const st = tempState();
    const served = await startServe({ port: 0, fresh: true, cwd: st.dir, env: st.env, service: true });
    try {
      await served.service;
      const quiet = await silent(served.port, served.token);
      // And a raw client of the service socket that never says its hello.
      const socket = net.createConnection(statePaths(st.env).serviceSocket);
      socket.setEncoding('utf8');
      let said = '';
      socket.on('data', (d: string) => (said += d));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      expect(await quiet.closed).toEqual({ code: 1008, reason: noHelloReason(HELLO_WITHIN_MS) });
      await ended;
      const answer = JSON.parse(said.trim()) as { t: string; ok: boolean; error: string };
      expect(answer).toMatchObject({ t: 'hello', ok: false });
      expect(answer.error).toMatch(/^no hello came within 10 s: a client's first line is \{"t":"hello",\.\.\.\}/);
      // The service itself is unharmed.
      const conn = await connectService({ env: st.env, client: 'cli', start: false });
      conn.close();
    } finally {
      await served.close();
      await stopService({ env: st.env });
      st.cleanup();
    }
  }, WAIT + 60_000);

  it('does not stall a pane it creates before its hello: the pane runs to its end while that socket stays silent and open', async () => {
    const st = tempState();
    const served = await startServe({ port: 0, fresh: true, cwd: st.dir, env: st.env, service: true });
    try {
      await served.service;
      const early = await silent(served.port, served.token);
      const done = path.join(st.dir, 'done');
      // ~590 KB of output, nine times what a reader's window holds unread, then a mark on disk.
      early.ws.send(JSON.stringify({ t: 'req', id: 1, name: 'pane.create', req: { command: [...LOGIN_BASH, '-c', `seq 1 100000; echo ok > ${done}`], cwd: st.dir } }));
      await waitFor(() => fs.existsSync(done), 'the pane running to its end', HELLO_WITHIN_MS * 3);
      // It ended while the socket that made it still said nothing (it was not waited on), not when that socket was let go.
      expect(early.ws.readyState).toBe(WebSocket.OPEN);
      early.ws.close();
    } finally {
      await served.close();
      await stopService({ env: st.env });
      st.cleanup();
    }
  }, WAIT + 60_000);
});
