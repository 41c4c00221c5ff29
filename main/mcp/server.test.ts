/**
 * The app's MCP server through the SDK's real Client over a real `terminal-delight mcp`
 * child process (StdioClientTransport), against a real app (createApp) with real panes.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stopService } from '../service/client.ts';
import { createApp, type App } from '../app.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { catalogue } from '../surfaces/registry.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(root, 'bin', 'terminal-delight');

let state: ReturnType<typeof tempState>;
let app: App;
const clients: Client[] = [];

beforeEach(async () => {
  state = tempState();
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await app.dispose();
  state.cleanup();
});

function shimEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(state.env)) if (v !== undefined) env[k] = v;
  return { ...env, TD_NODE: process.execPath, ...extra };
}

async function connect(extra: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: BIN, args: ['mcp'], env: shimEnv(extra), stderr: 'pipe' });
  const client = new Client({ name: 'td-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The shim as a child process, without blocking this process (the app runs in it). */
function runShim(env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, ['mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.stdin.end();
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

const text = (r: unknown): string => ((r as { content: Array<{ text: string }> }).content[0]!.text);

describe('MCP over terminal-delight mcp', () => {
  it('listens on a socket of mode 0600 in a folder of mode 0700', () => {
    const st = fs.statSync(app.paths.socket);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(app.paths.socket)).mode & 0o077).toBe(0);
  });

  it('presents a surface, refuses with the reason, retires, and lists the catalogue', async () => {
    const pane = app.panes.create({ command: ['/bin/cat'] });
    const client = await connect({ TD_PANE_ID: pane.id });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['present_surface', 'surface_catalogue']));

    const doc = { td: '0.4', kind: 'decision', id: 'cache-eviction', title: 'Cache eviction policy', model: { question: 'LRU or TTL?', options: [{ name: 'LRU', recommended: true }, { name: 'TTL' }] } };
    const presented = await client.callTool({ name: 'present_surface', arguments: { surface: doc } });
    expect(presented.isError).toBeFalsy();
    expect(JSON.parse(text(presented))).toMatchObject({ ok: true, id: 'cache-eviction', kind: 'decision', shelf: 'Decide', pane: pane.id });
    const file = path.join(app.panes.folder(pane.id), 'cache-eviction.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ td: '0.4', id: 'cache-eviction', model: doc.model });
    expect(app.surfaces.list(pane.id).map((s) => [s.id, s.route])).toEqual([['cache-eviction', 'mcp']]);
    // the saved file is not a second arrival
    app.surfaces.poller.scanAll();
    expect(app.surfaces.list(pane.id)).toHaveLength(1);
    expect(app.surfaces.list(pane.id)[0]!.route).toBe('mcp');

    const refused = await client.callTool({ name: 'present_surface', arguments: { surface: { td: '0.4', kind: 'artifact', id: 'r', model: { location: 'report.html' } } } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('Refused: "report.html" is relative — it would resolve against the TERMINAL\'s directory, not yours. Send an absolute path or a full URL.');
    const noTd = await client.callTool({ name: 'present_surface', arguments: { surface: { kind: 'response', model: { layman: 'x' } } } });
    expect(text(noTd)).toBe('Refused: missing `td` version field — this build speaks TDSP 0.4.');
    const asText = await client.callTool({ name: 'present_surface', arguments: { surface: JSON.stringify({ td: '0.4', kind: 'response', id: 'txt', model: { layman: 'sent as text' } }) } });
    expect(asText.isError).toBeFalsy();

    const retired = await client.callTool({ name: 'present_surface', arguments: { surface: { td: '0.4', op: 'retire', id: 'cache-eviction' } } });
    expect(JSON.parse(text(retired))).toMatchObject({ ok: true, retired: 'cache-eviction' });
    expect(fs.existsSync(file)).toBe(false);
    expect(app.surfaces.list(pane.id).map((s) => s.id)).toEqual(['txt']);
    const noId = await client.callTool({ name: 'present_surface', arguments: { surface: { td: '0.4', op: 'retire' } } });
    expect(text(noId)).toBe('Refused: `retire` needs the `id` of the surface to take off the bench.');

    const cat = await client.callTool({ name: 'surface_catalogue', arguments: {} });
    expect(JSON.parse(text(cat)).kinds).toEqual(catalogue());
  });

  it('finds the pane by the agent\'s pid', async () => {
    const pane = app.panes.create({ command: ['/bin/cat'] });
    const pid = await waitFor(() => app.panes.pid(pane.id), 'the pane\'s pid');
    const client = await connect();
    const r = await client.callTool({ name: 'present_surface', arguments: { pid, surface: { td: '0.4', kind: 'response', id: 'by-pid', model: { layman: 'x' } } } });
    expect(JSON.parse(text(r))).toMatchObject({ ok: true, pane: pane.id });
    const lost = await client.callTool({ name: 'present_surface', arguments: { pid: 1, surface: { td: '0.4', kind: 'response', id: 'lost', model: { layman: 'x' } } } });
    expect(lost.isError).toBe(true);
    expect(text(lost)).toMatch(/^Cannot tell which pane you run in: pid 1 is in no Terminal Delight pane/);
  });

  it('refuses writes while "MCP writes" is off, and still lists the catalogue', async () => {
    const pane = app.panes.create({ command: ['/bin/cat'] });
    app.settings.set({ mcpWrites: false });
    const client = await connect({ TD_PANE_ID: pane.id });
    const r = await client.callTool({ name: 'present_surface', arguments: { surface: { td: '0.4', kind: 'response', id: 'w', model: { layman: 'x' } } } });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('present_surface changes things, and "MCP writes" is off in Terminal Delight\'s settings — ask the person to turn it on, then call present_surface again.');
    expect(app.surfaces.list(pane.id)).toEqual([]);
    expect(fs.existsSync(path.join(app.panes.folder(pane.id), 'w.json'))).toBe(false);
    const cat = await client.callTool({ name: 'surface_catalogue', arguments: {} });
    expect(cat.isError).toBeFalsy();
  });

  it('refuses connections while "MCP server" is off, in one sentence, exit 1', async () => {
    app.settings.set({ mcpServer: false });
    const r = await runShim(shimEnv());
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('terminal-delight mcp: The Terminal Delight MCP server is off — ask the person to turn on "MCP server" in Terminal Delight\'s settings.\n');
  });

  it('starts the service when none runs for the state folder, and serves MCP from it', async () => {
    const other = tempState();
    try {
      const env = { ...shimEnv(), XDG_STATE_HOME: other.env.XDG_STATE_HOME!, HOME: other.env.HOME!, TD_SOCKET: path.join(other.dir, 'mcp.sock') };
      const transport = new StdioClientTransport({ command: BIN, args: ['mcp'], env, stderr: 'pipe' });
      const client = new Client({ name: 'td-test', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('present_surface');
      const lock = JSON.parse(fs.readFileSync(path.join(other.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'), 'utf8'));
      expect(lock.pid).not.toBe(process.pid);
      await client.close();
      expect(await stopService({ env })).toBe(true);
    } finally {
      other.cleanup();
    }
  });

  it('says so in one sentence when no service can be started, exit 1', async () => {
    const notAFolder = path.join(state.dir, 'a-file');
    fs.writeFileSync(notAFolder, '');
    const r = await runShim(shimEnv({ XDG_STATE_HOME: notAFolder, TD_SOCKET: path.join(state.dir, 'none.sock') }));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^terminal-delight mcp: Terminal Delight is not running and could not be started \(.+\) — start the app, then try again\.\n$/);
  });

  it('removes a stale socket at start and refuses to take over a live one', async () => {
    const socket = app.paths.socket;
    await app.dispose();
    // a stale socket file left behind by a crash: a process bound it and was killed
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(fs.lstatSync(socket).isSocket()).toBe(true);
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const client = await connect();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // a second app on the same socket does not take it over
    const { McpHost } = await import('./server.ts');
    const second = new McpHost({ socketPath: socket, settings: () => ({ mcpServer: true, mcpWrites: true }) });
    await expect(second.listen()).rejects.toThrow(/another Terminal Delight is serving MCP/);
  });

  it('answers a bad hello, or none, with one error line and closes', async () => {
    const net = await import('node:net');
    const { McpHost } = await import('./server.ts');
    const socketPath = path.join(state.dir, 'h.sock');
    const host = new McpHost({ socketPath, settings: () => ({ mcpServer: true, mcpWrites: true }), helloTimeoutMs: 200 });
    await host.listen();
    const talk = (send?: string) => new Promise<string>((resolve) => {
      const s = net.connect(socketPath);
      let got = '';
      s.on('data', (d) => { got += d.toString(); });
      s.on('close', () => resolve(got));
      if (send !== undefined) s.write(send);
    });
    expect(JSON.parse(await talk('{"jsonrpc":"2.0","id":1,"method":"initialize"}\n'))).toEqual({ td_mcp: 1, error: 'the first line was not a hello this app speaks (td_mcp 1) — update `terminal-delight mcp` to match the app' });
    expect(JSON.parse(await talk('nonsense\n')).error).toMatch(/^the first line was not a hello/);
    expect(JSON.parse(await talk()).error).toBe('no hello line came in time — connect with `terminal-delight mcp`');
    await host.close();
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it('says so when the socket path is too long for a Unix socket', async () => {
    const { McpHost } = await import('./server.ts');
    const host = new McpHost({ socketPath: path.join(state.dir, 'x'.repeat(120), 's.sock'), settings: () => ({ mcpServer: true, mcpWrites: true }) });
    await expect(host.listen()).rejects.toThrow(/longer than a Unix socket allows \(107\) — set TD_SOCKET to a shorter path/);
  });
});
