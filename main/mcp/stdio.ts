/**
 * `terminal-delight mcp`: the stdio shim an agent starts as its MCP server. Connects to
 * the running app's socket ($TD_SOCKET, or the default per-user socket), sends the hello
 * line ({"td_mcp":1,"pid":<our parent's pid: the agent>,"paneId":<$TD_PANE_ID or null>}),
 * reads the app's answer line, then pipes stdin → socket and socket → stdout.
 * When no service runs for the state folder it starts one (docs/design/service.md); when
 * that fails (or the app refuses), one sentence on stderr and exit 1.
 */
import net from 'node:net';
import { statePaths } from '../paths.ts';
import { connectService } from '../service/client.ts';
import { HELLO_VERSION } from './server.ts';

export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write('Usage: terminal-delight mcp\n  Speak MCP on stdin/stdout to the running Terminal Delight (for an agent\'s MCP configuration).\n');
    return 0;
  }
  const file = statePaths(env).socket;
  const fail = (sentence: string): number => {
    process.stderr.write(`terminal-delight mcp: ${sentence}\n`);
    return 1;
  };
  const open = (): Promise<{ socket: net.Socket; error?: NodeJS.ErrnoException }> => new Promise((resolve) => {
    const s = net.connect(file);
    s.once('connect', () => resolve({ socket: s }));
    s.once('error', (e) => resolve({ socket: s, error: e }));
  });
  let { socket, error: connected } = await open();
  if (connected && (connected.code === 'ENOENT' || connected.code === 'ECONNREFUSED')) {
    // No service runs for this state folder: start one (it serves the MCP socket), then try again.
    try {
      (await connectService({ env, client: 'cli' })).close();
    } catch (err) {
      return fail(`Terminal Delight is not running and could not be started (${(err as Error).message}) — start the app, then try again.`);
    }
    ({ socket, error: connected } = await open());
  }
  if (connected) {
    const why = connected.code === 'ENOENT' || connected.code === 'ECONNREFUSED' ? 'is not running' : `cannot be reached (${connected.code ?? connected.message})`;
    return fail(`Terminal Delight ${why} (no MCP socket at ${file}) — start the app, then try again.`);
  }
  const paneId = env.TD_PANE_ID && /^[A-Za-z0-9._-]{1,128}$/.test(env.TD_PANE_ID) ? env.TD_PANE_ID : null;
  socket.write(`${JSON.stringify({ td_mcp: HELLO_VERSION, pid: process.ppid, paneId })}\n`);

  // The app's answer line.
  const answer = await new Promise<{ line?: string; rest?: Buffer; error?: string }>((resolve) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl < 0) return;
      socket.off('data', onData);
      socket.pause();
      resolve({ line: buf.subarray(0, nl).toString('utf8'), rest: buf.subarray(nl + 1) });
    };
    socket.on('data', onData);
    socket.once('close', () => resolve({ error: 'the app closed the connection before answering — try again' }));
    socket.once('error', (e) => resolve({ error: `the connection failed (${e.message}) — try again` }));
  });
  if (answer.error) return fail(answer.error);
  let reply: { ok?: boolean; error?: string };
  try {
    reply = JSON.parse(answer.line!) as { ok?: boolean; error?: string };
  } catch {
    socket.destroy();
    return fail('the app answered something that is not a hello — update terminal-delight to match the app');
  }
  if (!reply.ok) {
    socket.destroy();
    return fail(reply.error ?? 'the app refused the connection');
  }
  if (answer.rest && answer.rest.length > 0) process.stdout.write(answer.rest);

  return new Promise<number>((resolve) => {
    socket.pipe(process.stdout);
    process.stdin.pipe(socket);
    socket.resume();
    process.stdin.once('end', () => socket.end());
    socket.once('close', () => {
      process.stdin.unpipe(socket);
      process.stdin.pause();
      resolve(0);
    });
    socket.on('error', () => socket.destroy());
  });
}
