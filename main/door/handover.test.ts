import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningHolders, waitFor } from '../panes/testing.ts';
import { DOOR_HANDOVER_ENV, handDoorOver } from './handover.ts';

const HERE = import.meta.dirname;
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * A service's first steps, as main/service/main.ts takes them: ask for the door's socket, load
 * for `delayMs` (the door is not ready: connections wait), then serve HTTP on it, taking what
 * it accepted meanwhile, and start a shell in a real PTY, as a pane is started. Prints one JSON
 * line: whether a socket came, its port, and the shell's pid.
 */
function serviceLike(delayMs: number, env: NodeJS.ProcessEnv, stdio: 'ipc' | 'none' = 'ipc'): { child: ChildProcess; said: Promise<{ got: boolean; port?: number; shellPid?: number }> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-handover-'));
  dirs.push(dir);
  const script = path.join(dir, 'service-like.ts');
  fs.writeFileSync(script, `
import http from 'node:http';
import pty from ${JSON.stringify(path.resolve(HERE, '../../node_modules/node-pty/lib/index.js'))};
import { askForDoorSocket, takeHeldConnections } from ${JSON.stringify(path.join(HERE, 'handover.ts'))};
const server = await askForDoorSocket(5_000);
if (!server) {
  console.log(JSON.stringify({ got: false }));
  process.exit(0);
}
await new Promise((r) => setTimeout(r, ${delayMs}));
const door = http.createServer((req, res) => res.end('door ' + req.url));
door.listen(server);
for (const s of takeHeldConnections(server)) door.emit('connection', s);
const shell = pty.spawn('/bin/sh', ['-c', 'sleep 30'], { cwd: ${JSON.stringify(dir)} });
console.log(JSON.stringify({ got: true, port: server.address().port, shellPid: shell.pid }));
`);
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', script], {
    env: { ...process.env, ...env },
    stdio: stdio === 'ipc' ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const said = waitFor(() => (out.includes('\n') ? (JSON.parse(out.split('\n')[0]!) as { got: boolean; port?: number; shellPid?: number }) : undefined), 'the service-like child\'s line', 20_000);
  return { child, said };
}

async function bound(): Promise<net.Server> {
  const listener = net.createServer((s) => s.destroy());
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  return listener;
}

function get(port: number, p: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe("serve's bound socket handed to the service it starts", () => {
  it('is listened on there: requests made before that door was ready are answered in order, and only the service holds the port (not serve, not a shell it starts)', async () => {
    const listener = await bound();
    const port = (listener.address() as net.AddressInfo).port;
    const { child, said } = serviceLike(400, { [DOOR_HANDOVER_ENV]: '1' });
    expect(await handDoorOver(child, listener)).toBe(true);
    // serve's copy is closed once handed over, and so is the channel.
    expect(listener.listening).toBe(false);
    expect(child.connected).toBe(false);
    // Made now, while the service still loads: they wait in the socket's backlog, not refused.
    const answers: string[] = [];
    const asked = ['/first', '/second'].map((p) => get(port, p).then((b) => (answers.push(b), b)));
    const line = await said;
    expect(line).toMatchObject({ got: true, port });
    expect(await Promise.all(asked)).toEqual(['door /first', 'door /second']);
    expect(answers).toEqual(['door /first', 'door /second']);
    // Close-on-exec: the shell the service started in a PTY (forkpty, no descriptor closing) holds no copy.
    // (Between its fork and its exec the shell's process still has the service's descriptors: waited out.)
    await waitFor(() => fs.existsSync(`/proc/${line.shellPid}`), 'the shell running');
    await waitFor(() => listeningHolders(port).join() === String(child.pid), 'the service alone holding the port');
    expect(listeningHolders(port)).toEqual([child.pid]);
  });

  it('is closed, and false said, when the child never asks or dies first; a child offered none goes on without it', async () => {
    // Not offered (no channel, no variable): the child does not wait for a socket.
    const alone = serviceLike(0, {}, 'none');
    expect(await alone.said).toEqual({ got: false });
    // A channel but the variable unset: it never asks, and serve gives up.
    const listener = await bound();
    const quiet = serviceLike(0, {});
    expect(await handDoorOver(quiet.child, listener, 1_000)).toBe(false);
    expect(listener.listening).toBe(false);
    expect(await quiet.said).toEqual({ got: false });
    // The child is gone before it asks.
    const second = await bound();
    const dying = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    children.push(dying);
    expect(await handDoorOver(dying, second)).toBe(false);
    expect(second.listening).toBe(false);
  });
});
