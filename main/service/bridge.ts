/**
 * `terminal-delight bridge`: the far end of a link (docs/design/remote.md), run by `ssh` on
 * the far machine, never by a person. It reaches this machine's service exactly as a local
 * client does (connectService: started on demand), says its hello line, then carries
 * channels over stdin and stdout (main/machines/link-frames.ts): each channel is one service
 * connection whose hello it makes itself, with the token it reads here. The token never goes
 * over the link.
 */
import net from 'node:net';
import os from 'node:os';
import { appVersion, PROTOCOL } from '../version.ts';
import { BRIDGE_MARK, BRIDGE_PROTOCOL, FRAME, LINK_MARK, LinkReader, MAX_CHANNELS, PING_MS, frameHead, helloLine, parseLinkHello, parseOpenSpec, type BridgeHello, type FrameKind } from '../machines/link-frames.ts';
import { connectService, type ServiceConnection } from './client.ts';

export interface BridgeIo {
  input: NodeJS.ReadableStream;
  /** false when the output holds more than it wants (the far service's connections are then not read until `drained`). */
  write(bytes: Buffer | string): boolean | void;
  /** Called once the output has room again after `write` said false. */
  drained?(fn: () => void): void;
  env: NodeJS.ProcessEnv;
}

/** Runs the bridge until its input ends; resolves with the exit code. */
export async function bridge(io: BridgeIo): Promise<number> {
  const hello: BridgeHello = { bridge: BRIDGE_PROTOCOL, version: appVersion(), protocol: PROTOCOL, hostname: os.hostname() };
  // The bridge's own connection: starts the service when none runs, says which one answers,
  // and ends the bridge when that service goes away (the link then reconnects to the next).
  let own: ServiceConnection | undefined;
  try {
    own = await connectService({ env: io.env, client: 'cli' });
    hello.service = { pid: own.hello.pid, startedAt: own.hello.startedAt, version: own.hello.version, protocol: own.hello.protocol };
  } catch (err) {
    const far = (err as { service?: { version?: string; protocol?: number } }).service;
    hello.error = far && typeof far.protocol === 'number'
      ? `its service runs version ${far.version} (protocol ${far.protocol}) and its terminal-delight is ${appVersion()} (protocol ${PROTOCOL}): run \`terminal-delight service restart\` there`
      : (err as Error).message;
  }
  io.write(helloLine(BRIDGE_MARK, hello));
  if (!own) return 1;

  const channels = new Map<number, ServiceConnection | 'opening'>();
  // Backpressure: while ssh has not taken what was written, the service's connections are not
  // read, so a flood waits in the far service's flow control, not in this process's memory.
  let full = false;
  const send = (kind: FrameKind, channel: number, payload: Buffer | string = ''): void => {
    const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
    io.write(frameHead(kind, channel, body.length));
    if (body.length > 0 && io.write(body) === false && !full && io.drained) {
      full = true;
      for (const c of channels.values()) if (c !== 'opening') c.pause();
      io.drained(() => {
        full = false;
        for (const c of channels.values()) if (c !== 'opening') c.resume();
      });
    }
  };
  const closeChannel = (ch: number, why: string): void => {
    const c = channels.get(ch);
    if (c === undefined) return;
    channels.delete(ch);
    if (c !== 'opening') c.close();
    send(FRAME.close, ch, why);
  };

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = (code: number, why?: string): void => {
      if (finished) return;
      finished = true;
      clearInterval(ping);
      if (why) send(FRAME.close, 0, why);
      for (const c of channels.values()) if (c !== 'opening') c.close();
      own!.close();
      resolve(code);
    };
    const ping = setInterval(() => send(FRAME.ping, 0), PING_MS);
    own!.on('close', () => finish(0, 'the service there stopped'));

    const reader = new LinkReader(
      LINK_MARK,
      (json) => {
        const h = parseLinkHello(json);
        if (typeof h === 'string') return finish(2, h);
        if (h.bridge !== BRIDGE_PROTOCOL) finish(2, `this bridge speaks link protocol ${BRIDGE_PROTOCOL} and the home side ${h.bridge}: update the older one`);
      },
      (kind, ch, payload) => {
        if (ch === 0) return; // the home side's pings
        if (kind === FRAME.open) {
          if (channels.has(ch)) return closeChannel(ch, `channel ${ch} is open already`);
          if (channels.size >= MAX_CHANNELS) return send(FRAME.close, ch, `a link carries at most ${MAX_CHANNELS} channels`);
          const spec = parseOpenSpec(payload);
          if (typeof spec === 'string') return send(FRAME.close, ch, spec);
          channels.set(ch, 'opening');
          connectService({ env: io.env, client: spec.client, binary: spec.binary, cwd: spec.cwd }).then(
            (c) => {
              if (channels.get(ch) !== 'opening') return c.close();
              channels.set(ch, c);
              if (full) c.pause();
              c.relayTo((data, binary) => send(binary ? FRAME.binary : FRAME.line, ch, data));
              c.on('close', () => {
                if (channels.get(ch) === c) closeChannel(ch, 'the service there closed this connection');
              });
              send(FRAME.open, ch, JSON.stringify(c.hello));
            },
            (err: Error) => {
              if (channels.get(ch) === 'opening') {
                channels.delete(ch);
                send(FRAME.close, ch, err.message);
              }
            },
          );
        } else if (kind === FRAME.line) {
          const c = channels.get(ch);
          if (c && c !== 'opening') c.sendLine(payload.toString('utf8'));
        } else if (kind === FRAME.close) {
          const c = channels.get(ch);
          channels.delete(ch);
          if (c && c !== 'opening') c.close();
        }
      },
      (why) => finish(2, why),
    );
    io.input.on('data', (chunk: Buffer) => reader.push(chunk));
    io.input.on('end', () => finish(0));
    io.input.on('error', () => finish(0));
  });
}

export async function run(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    process.stdout.write('Usage: terminal-delight bridge\n\nThe far end of a machine\'s link: `terminal-delight connect HOST` runs it on HOST through ssh, to reach\nthat machine\'s service (started on demand) over stdio. Not run by hand.\n');
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write('bridge: takes no arguments; it is run by `terminal-delight connect` through ssh, not by hand\n');
    return 2;
  }
  // Nothing but frames on stdout from here: a stray log line would break the stream. Written
  // through a socket of its own on fd 1, not process.stdout: Node writes a pipe's stdout
  // synchronously on Linux, so each frame held the bridge until ssh read it, and the window's
  // acknowledgements waited unread behind it (docs/spec/remote.md, "Throughput").
  const out = new net.Socket({ fd: 1, readable: false, writable: true });
  out.on('error', () => undefined);
  // What is written in one turn of the loop goes out in one writev.
  let corked = false;
  const write = (b: Buffer | string): boolean => {
    if (!corked) {
      corked = true;
      out.cork();
      process.nextTick(() => {
        corked = false;
        out.uncork();
      });
    }
    return out.write(b);
  };
  const code = await bridge({ input: process.stdin, write, drained: (fn) => void out.once('drain', fn), env: process.env });
  await new Promise<void>((r) => out.end(() => r()));
  // The service connection's socket and timers are not waited for: the link is over.
  process.exit(code);
}
