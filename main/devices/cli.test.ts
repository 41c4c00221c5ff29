/**
 * `terminal-delight devices` as a person runs it: real child processes in a home and
 * state of their own, against the service they start; a phone (these HTTPS requests)
 * pairs with the code `devices pair` prints.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../panes/testing.ts';
import { stopService } from '../service/client.ts';

const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'terminal-delight');
let state: ReturnType<typeof tempState>;

beforeEach(() => {
  state = tempState();
  state.env.TD_NODE = process.execPath;
});
afterEach(async () => {
  await stopService({ env: state.env }).catch(() => undefined);
  state.cleanup();
});

const td = (...args: string[]) => spawnSync(bin, args, { encoding: 'utf8', env: state.env, cwd: state.dir, timeout: 60_000 });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe('terminal-delight devices', () => {
  it('on, pair (a device pairs with the printed code), list, revoke, off', async () => {
    expect(td('devices', 'on').stderr).toContain('on needs --address');
    expect(td('devices', 'on', '--address', '0.0.0.0:8443')).toMatchObject({ status: 1, stderr: expect.stringContaining('--all-interfaces') });
    const port = await freePort();
    const on = td('devices', 'on', '--address', `127.0.0.1:${port}`);
    expect(on.stderr).toBe('');
    expect(on.status).toBe(0);
    expect(on.stdout).toMatch(new RegExp(`^on: https://127\\.0\\.0\\.1:${port}/\\n  certificate SHA-256 ([0-9A-F]{2}:){31}[0-9A-F]{2} \\(made by the app`));
    const ca = fs.readFileSync(path.join(state.dir, 'state', 'terminal-delight', 'devices', 'cert.pem'), 'utf8');

    const pairing = spawn(bin, ['devices', 'pair'], { env: state.env, cwd: state.dir });
    let out = '';
    pairing.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await waitFor(() => /^ {4}([A-Z0-9]{4}) ([A-Z0-9]{4})$/m.exec(out), 'the code printed', 30_000);
    // The QR code as terminal text, above the URL without its secret.
    expect(out).toMatch(/[▀▄█]/);
    expect(out).toContain(`open https://127.0.0.1:${port}/pair and type the code`);
    const exited = new Promise<number | null>((resolve) => pairing.on('exit', (c) => resolve(c)));
    const res = await fetchJson(port, ca, { code: `${code[1]}${code[2]}`, name: 'Ada\'s Pixel' });
    expect(res).toEqual({ ok: true, name: 'Ada\'s Pixel' });
    expect(await exited).toBe(0);
    expect(out).toContain('paired: Ada\'s Pixel\n');

    const list = td('devices', 'list');
    expect(list.stdout).toMatch(/^ {2}Ada's Pixel {2}paired \S+ {2}last seen \S+/m);
    expect(td('devices', 'revoke', 'Bob')).toMatchObject({ status: 1, stderr: expect.stringContaining('no device is named "Bob"') });
    expect(td('devices', 'revoke', 'Ada\'s Pixel')).toMatchObject({ status: 0, stdout: 'revoked Ada\'s Pixel: its connections were closed\n' });
    expect(td('devices', 'list').stdout).toContain('no devices paired');
    expect(td('devices', 'off')).toMatchObject({ status: 0, stdout: 'off\nno devices paired\n' });
  }, 120_000);
});

function fetchJson(port: number, ca: string, body: unknown): Promise<unknown> {
  return import('node:https').then((https) => new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = https.request({ host: '127.0.0.1', port, path: '/api/pair', method: 'POST', ca, headers: { 'Content-Type': 'application/json', Origin: `https://127.0.0.1:${port}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(data);
  }));
}
