/**
 * A link: the home service's one `ssh` to a machine, running `terminal-delight bridge`
 * there, and the channels inside it (docs/design/remote.md). `openLink` resolves once the
 * bridge's hello says it reached its service, or rejects with a Failure's sentence.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { appVersion, PROTOCOL } from '../version.ts';
import { BRIDGE_MARK, BRIDGE_PROTOCOL, FRAME, LINK_MARK, LINK_SILENT_MS, LinkReader, MAX_CHANNELS, PING_MS, encodeFrame, helloLine, parseBridgeHello, type BridgeHello, type FrameKind, type OpenSpec } from './link-frames.ts';
import { linkFailure, sshArgv, sshDestination, versionProblem, type Failure, type Target } from './reasons.ts';

export class LinkError extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.sentence);
    this.failure = failure;
  }
}

/** One service connection on the far machine, inside a link. */
export class Channel extends EventEmitter {
  readonly id: number;
  /** The far service's hello for this connection. */
  hello: unknown;
  private readonly link: Link;
  closed = false;

  /** Frames that came before anyone listened (in the same read as the open's answer): given out once a 'line' listener is added. */
  private held: Array<['line' | 'binary', Buffer]> | undefined = [];

  constructor(link: Link, id: number) {
    super();
    this.link = link;
    this.id = id;
    this.on('newListener', (event: string) => {
      if (event === 'line' && this.held) queueMicrotask(() => this.release());
    });
  }

  /** @internal a frame for whoever listens, or held until someone does */
  deliver(kind: 'line' | 'binary', payload: Buffer): void {
    if (this.held && this.listenerCount('line') === 0) {
      if (this.held.length >= 1024) return this.close('too many frames before its first reader');
      this.held.push([kind, payload]);
      return;
    }
    this.emit(kind, payload);
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const [kind, payload] of held) if (!this.closed) this.emit(kind, payload);
  }

  /** One JSON frame's text to the far service. */
  sendLine(text: string): void {
    if (!this.closed) this.link.send(FRAME.line, this.id, text);
  }

  close(why = 'closed'): void {
    if (this.closed) return;
    this.link.send(FRAME.close, this.id, why);
    this.ended(why);
  }

  /** @internal */
  ended(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.link.forget(this.id);
    this.emit('close', why);
  }
}

export interface LinkOptions {
  name: string;
  target: Target;
  farCommand: string;
  env: NodeJS.ProcessEnv;
  /** The command that tries again, for the failure's sentence. */
  connectCmd: string;
  timeoutMs?: number;
}

export class Link extends EventEmitter {
  readonly name: string;
  readonly child: ChildProcess;
  hello: BridgeHello | undefined;
  private readonly channels = new Map<number, { ch: Channel; opened: (c: Channel) => void; failed: (e: Error) => void; open: boolean }>();
  private nextChannel = 1;
  private stderr = '';
  private lastHeard = Date.now();
  private down: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: LinkOptions, child: ChildProcess) {
    super();
    this.name = opts.name;
    this.child = child;
  }

  get isDown(): boolean {
    return this.down !== undefined;
  }

  /** @internal */
  send(kind: FrameKind, channel: number, payload: Buffer | string = ''): void {
    if (this.down || !this.child.stdin?.writable) return;
    this.child.stdin.write(encodeFrame(kind, channel, payload));
  }

  /** @internal */
  forget(id: number): void {
    this.channels.delete(id);
  }

  /** A service connection on the far machine. */
  openChannel(spec: OpenSpec): Promise<Channel> {
    if (this.down) return Promise.reject(new Error(this.down));
    if (this.channels.size >= MAX_CHANNELS) return Promise.reject(new Error(`the link to ${this.name} carries ${MAX_CHANNELS} channels already`));
    const id = this.nextChannel++;
    const ch = new Channel(this, id);
    return new Promise((resolve, reject) => {
      this.channels.set(id, { ch, opened: resolve, failed: reject, open: false });
      this.send(FRAME.open, id, JSON.stringify(spec));
    });
  }

  /** End the link (ssh is stopped); `down` is emitted once with why. */
  close(why: string): void {
    this.goDown(why);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
  }

  /** @internal the frames after the hello */
  frame(kind: FrameKind, channel: number, payload: Buffer): void {
    this.lastHeard = Date.now();
    if (channel === 0) {
      if (kind === FRAME.close) this.close(`the bridge on ${this.name} ended the link: ${clean(payload.toString('utf8'))}`);
      return;
    }
    const c = this.channels.get(channel);
    // (A channel closed here may still have frames on the way: dropped.)
    if (!c) return;
    if (kind === FRAME.open) {
      if (c.open) return this.close(`${this.name} sent a second open for channel ${channel}: the link was cut off`);
      c.open = true;
      try {
        c.ch.hello = JSON.parse(payload.toString('utf8'));
      } catch {
        return this.close(`${this.name} sent an open frame that is not JSON: the link was cut off`);
      }
      c.opened(c.ch);
    } else if (kind === FRAME.close) {
      this.channels.delete(channel);
      const why = clean(payload.toString('utf8')).slice(0, 300);
      if (!c.open) c.failed(new Error(`${this.name} could not open a connection to its service: ${why}`));
      c.ch.ended(why);
    } else if (!c.open) {
      this.close(`${this.name} sent frames on channel ${channel} before opening it: the link was cut off`);
    } else if (kind === FRAME.line) {
      c.ch.deliver('line', payload);
    } else if (kind === FRAME.binary) {
      c.ch.deliver('binary', payload);
    } else {
      this.close(`${this.name} sent a frame of kind ${kind} on channel ${channel}: the link was cut off`);
    }
  }

  /** @internal */
  goDown(why: string): void {
    if (this.down) return;
    this.down = why;
    clearInterval(this.timer);
    for (const c of [...this.channels.values()]) {
      if (!c.open) c.failed(new Error(why));
      c.ch.ended(why);
    }
    this.channels.clear();
    this.emit('down', why);
  }

  /** @internal */
  watch(): void {
    this.timer = setInterval(() => {
      if (Date.now() - this.lastHeard > LINK_SILENT_MS) this.close(`${this.name} sent nothing for ${LINK_SILENT_MS / 1000} s`);
      else this.send(FRAME.ping, 0);
    }, PING_MS);
    this.timer.unref();
  }

  /** @internal */
  addStderr(s: string): void {
    this.stderr = (this.stderr + s).slice(-8192);
  }

  get stderrText(): string {
    return this.stderr;
  }
}

function clean(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]/g, ' ').trim();
}

/** Start `ssh` to the machine and wait for the bridge's hello (default 30 s). */
export function openLink(opts: LinkOptions): Promise<Link> {
  const argv = sshArgv(opts.target, opts.farCommand, opts.env.TD_SSH_CONFIG || undefined);
  const child = spawn(opts.env.TD_SSH || 'ssh', argv, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const link = new Link(opts, child);
  const home = { bridge: BRIDGE_PROTOCOL, version: appVersion(), protocol: PROTOCOL };
  child.stdin!.on('error', () => undefined);
  child.stdin!.write(helloLine(LINK_MARK, home));
  return new Promise<Link>((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        link.close(err.message);
        reject(err);
      } else {
        link.watch();
        resolve(link);
      }
    };
    const timer = setTimeout(() => settle(new LinkError({ kind: 'unreachable', sentence: `${opts.name} did not answer within ${Math.round((opts.timeoutMs ?? 30_000) / 1000)} s: run \`ssh ${sshDestination(opts.target)}\` in a terminal to see why, then \`${opts.connectCmd}\`` })), opts.timeoutMs ?? 30_000);
    timer.unref();
    const reader = new LinkReader(
      BRIDGE_MARK,
      (json) => {
        const h = parseBridgeHello(json);
        if (typeof h === 'string') return settle(new LinkError({ kind: 'bridge', sentence: `${opts.name} answered as no bridge does (${h}): the link was cut off` }));
        link.hello = h;
        const v = versionProblem(opts.name, h, home);
        if (v) return settle(new LinkError(v));
        if (h.error || !h.service) return settle(new LinkError({ kind: 'bridge', sentence: `terminal-delight on ${opts.name} could not reach its service: ${h.error ?? 'no reason given'}` }));
        settle();
      },
      (kind, ch, payload) => link.frame(kind, ch, payload),
      (why) => {
        const sentence = `${opts.name} sent what a link does not carry (${why}): the link was cut off`;
        if (!settled) settle(new LinkError({ kind: 'bridge', sentence }));
        else link.close(sentence);
      },
    );
    child.stdout!.on('data', (chunk: Buffer) => reader.push(chunk));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => link.addStderr(s));
    child.on('error', (err) => settle(new LinkError({ kind: 'unreachable', sentence: `ssh could not be started (${err.message}): install the OpenSSH client (apt-get install openssh-client)` })));
    child.on('close', (code, signal) => {
      const failure = linkFailure(opts.name, { code, signal, stderr: link.stderrText + (reader.skipped ? `\n${reader.skipped}` : '') }, opts.connectCmd, sshDestination(opts.target));
      if (!settled) settle(new LinkError(failure));
      link.goDown(failure.sentence);
    });
  });
}
