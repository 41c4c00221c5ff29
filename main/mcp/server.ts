/**
 * The app's MCP server, on the official SDK, listening on a per-user Unix socket
 * (`paths.socket`; its folder mode 0700, the socket mode 0600; a stale socket is removed
 * at start). Agents reach it through `terminal-delight mcp` (main/mcp/stdio.ts).
 *
 * A connection starts with one hello line from the shim,
 *   {"td_mcp":1,"pid":<the agent's pid>,"paneId":<$TD_PANE_ID or null>}
 * answered by one line, {"td_mcp":1,"ok":true} or {"td_mcp":1,"error":"<sentence>"}
 * (then closed). After it the socket carries MCP's newline-delimited JSON-RPC, served
 * by one McpServer per connection. Services add their tools as ToolDef lists.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';
import type { ToolDef, ToolResult, Z } from './tool.ts';

export const HELLO_VERSION = 1;
/** The hello line is at most this long. */
const HELLO_MAX = 4096;
/** And comes within this long. */
const HELLO_TIMEOUT_MS = 10_000;

export interface McpSettings {
  mcpServer: boolean;
  mcpWrites: boolean;
}

export interface McpHostOptions {
  socketPath: string;
  /** The current settings (SettingsApi.get); read at every connection and call. */
  settings: () => McpSettings;
  version?: string;
  /** How long a connection may wait before its hello line (default 10 s). */
  helloTimeoutMs?: number;
}

export interface Hello {
  td_mcp: number;
  pid?: number | null;
  paneId?: string | null;
}

export const SERVER_OFF = 'The Terminal Delight MCP server is off — ask the person to turn on "MCP server" in Terminal Delight\'s settings.';
export const writesOff = (tool: string) =>
  `${tool} changes things, and "MCP writes" is off in Terminal Delight's settings — ask the person to turn it on, then call ${tool} again.`;

/** A ToolResult as the SDK's CallToolResult. */
export function toCallResult(r: ToolResult): CallToolResult {
  const text = r.text ?? (r.json === undefined ? '' : JSON.stringify(r.json, null, 2));
  const out: CallToolResult = { content: [{ type: 'text', text }] };
  if (r.json !== undefined && r.json !== null && typeof r.json === 'object' && !Array.isArray(r.json)) {
    out.structuredContent = r.json as Record<string, unknown>;
  }
  if (r.isError) out.isError = true;
  return out;
}

/** Parse the shim's hello line; the reason when it is not one. */
export function parseHello(line: string): Hello | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'the first line was not a hello — connect with `terminal-delight mcp`';
  }
  if (!v || typeof v !== 'object' || (v as Hello).td_mcp !== HELLO_VERSION) {
    return 'the first line was not a hello this app speaks (td_mcp 1) — update `terminal-delight mcp` to match the app';
  }
  const h = v as Hello;
  return {
    td_mcp: HELLO_VERSION,
    pid: typeof h.pid === 'number' && Number.isInteger(h.pid) && h.pid > 0 ? h.pid : null,
    paneId: typeof h.paneId === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(h.paneId) ? h.paneId : null,
  };
}

interface Connection {
  socket: net.Socket;
  server?: McpServer;
  hello?: Hello;
  controllers: Set<AbortController>;
}

export class McpHost {
  private readonly tools = new Map<string, ToolDef>();
  private readonly connections = new Set<Connection>();
  private readonly opts: McpHostOptions;
  private listener?: net.Server;
  /** zod, once the first agent's connection loaded it with the SDK; every registration comes after that. */
  private z?: Z;
  /** Each tool's input shape, made once from zod at its first registration. */
  private readonly shapes = new WeakMap<ToolDef, ZodRawShape>();

  constructor(opts: McpHostOptions) {
    this.opts = opts;
  }

  get socketPath(): string {
    return this.opts.socketPath;
  }

  /** Add tools (a service's list); returns a function that takes them away again. */
  addTools(defs: ToolDef[]): () => void {
    for (const d of defs) {
      if (this.tools.has(d.name)) throw new Error(`an MCP tool named ${d.name} is already installed`);
    }
    for (const d of defs) {
      this.tools.set(d.name, d);
      for (const c of this.connections) if (c.server) this.register(c, d);
    }
    return () => {
      for (const d of defs) this.tools.delete(d.name);
      // Live connections keep what they listed; each call checks the tool is still there.
    };
  }

  toolNames(): string[] {
    return [...this.tools.keys()];
  }

  /** Listen on the socket: folder 0700, socket 0600, a stale socket removed first. */
  async listen(): Promise<void> {
    const file = this.opts.socketPath;
    if (Buffer.byteLength(file) > 107) {
      throw new Error(`the socket path ${file} is ${Buffer.byteLength(file)} bytes, longer than a Unix socket allows (107) — set TD_SOCKET to a shorter path`);
    }
    const dir = path.dirname(file);
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.chmodSync(dir, 0o700);
    } else if (path.basename(dir) === 'run') {
      fs.chmodSync(dir, 0o700);
    }
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st) {
      if (!st.isSocket()) throw new Error(`${file} is not a socket — move it away so the MCP server can listen there`);
      if (await answers(file)) throw new Error(`another Terminal Delight is serving MCP at ${file} — quit it first, or set TD_SOCKET to another path`);
      fs.rmSync(file, { force: true });
    }
    const server = net.createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => {
        server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(file, 0o600);
    this.listener = server;
  }

  async close(): Promise<void> {
    const server = this.listener;
    this.listener = undefined;
    for (const c of this.connections) {
      for (const ac of c.controllers) ac.abort();
      c.socket.destroy();
      await c.server?.close().catch(() => undefined);
    }
    this.connections.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      const st = fs.lstatSync(this.opts.socketPath, { throwIfNoEntry: false });
      if (st?.isSocket()) fs.rmSync(this.opts.socketPath, { force: true });
    } catch {
      // already gone
    }
  }

  private accept(socket: net.Socket): void {
    const conn: Connection = { socket, controllers: new Set() };
    this.connections.add(conn);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.connections.delete(conn);
      for (const ac of conn.controllers) ac.abort();
      void conn.server?.close().catch(() => undefined);
    });
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        if (buf.length > HELLO_MAX) refuse('the hello line is too long — connect with `terminal-delight mcp`');
        return;
      }
      socket.off('data', onData);
      socket.pause();
      const hello = parseHello(buf.subarray(0, nl).toString('utf8'));
      const rest = buf.subarray(nl + 1);
      if (typeof hello === 'string') return refuse(hello);
      if (!this.opts.settings().mcpServer) return refuse(SERVER_OFF);
      conn.hello = hello;
      socket.write(`${JSON.stringify({ td_mcp: HELLO_VERSION, ok: true })}\n`);
      if (rest.length > 0) socket.unshift(rest);
      void this.serve(conn);
    };
    const refuse = (error: string) => {
      socket.off('data', onData);
      socket.end(`${JSON.stringify({ td_mcp: HELLO_VERSION, error })}\n`);
    };
    socket.on('data', onData);
    // A client that never says hello does not hold a connection for long.
    const timer = setTimeout(() => {
      if (!conn.hello && !socket.destroyed) refuse('no hello line came in time — connect with `terminal-delight mcp`');
    }, this.opts.helloTimeoutMs ?? HELLO_TIMEOUT_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  private async serve(conn: Connection): Promise<void> {
    // The SDK and zod are loaded by the first agent that connects, not at the core's start
    // (~100 ms of it; zod alone holds ~3 MiB of the heap): the tools' input shapes are made then.
    const [{ McpServer }, { StdioServerTransport }, { z }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('zod'),
    ]);
    this.z = z;
    if (conn.socket.destroyed) return;
    const server = new McpServer(
      { name: 'terminal-delight', version: this.opts.version ?? '0.1.0' },
      { instructions: 'Terminal Delight: show surfaces (TDSP 0.4) on your pane\'s workbench with present_surface; surface_catalogue lists the kinds.' },
    );
    conn.server = server;
    for (const d of this.tools.values()) this.register(conn, d);
    const transport = new StdioServerTransport(conn.socket, conn.socket);
    transport.onclose = () => conn.socket.end();
    try {
      await server.connect(transport);
      conn.socket.resume(); // paused while the hello was read; a new 'data' listener does not resume it
    } catch {
      conn.socket.destroy();
    }
  }

  private register(conn: Connection, def: ToolDef): void {
    let shape = this.shapes.get(def);
    if (!shape) this.shapes.set(def, (shape = def.inputSchema(this.z!)));
    conn.server!.registerTool(def.name, { description: def.description, inputSchema: shape }, async (args: Record<string, unknown>, extra) => {
      const settings = this.opts.settings();
      if (!settings.mcpServer) return toCallResult({ text: SERVER_OFF, isError: true });
      if (this.tools.get(def.name) !== def) return toCallResult({ text: `${def.name} is no longer offered by this app — list the tools again`, isError: true });
      if (def.writes && !settings.mcpWrites) return toCallResult({ text: writesOff(def.name), isError: true });
      const ac = new AbortController();
      conn.controllers.add(ac);
      const onAbort = () => ac.abort();
      extra.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result = await def.handler(args ?? {}, {
          signal: ac.signal,
          askingPaneId: conn.hello?.paneId ?? undefined,
          clientPid: conn.hello?.pid ?? undefined,
        });
        return toCallResult(result);
      } catch (e) {
        return toCallResult({ text: `${def.name} failed: ${e instanceof Error ? e.message : String(e)}`, isError: true });
      } finally {
        extra.signal.removeEventListener('abort', onAbort);
        conn.controllers.delete(ac);
      }
    });
  }
}

/** Whether something listens on that socket (an app already running). */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(file);
    const done = (v: boolean) => {
      s.destroy();
      resolve(v);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    setTimeout(() => done(false), 1000).unref();
  });
}
