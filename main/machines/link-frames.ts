/**
 * A link's stream (docs/design/remote.md, "The link's stream"): what the home service and a
 * far `terminal-delight bridge` say to each other over `ssh`'s stdin and stdout. Pure.
 *
 * First, each side writes one hello line, `TD-BRIDGE {json}\n` (far → home) and
 * `TD-LINK {json}\n` (home → far): anything before it (a far shell's startup file that
 * prints) is skipped, up to HELLO_MAX bytes. Then frames, each:
 *
 *   4 bytes  length of what follows (big-endian), at most MAX_LINK_FRAME
 *   1 byte   kind (FRAME below)
 *   4 bytes  channel (big-endian; 0 is the link itself)
 *   payload
 */

import { Leftover } from '../clients/frames.ts';

/** Bumped when the link's stream changes in a way the other side could not read. */
export const BRIDGE_PROTOCOL = 1;

export const FRAME = {
  /** home → far: open a service connection (payload: OpenSpec JSON); far → home: it is open (payload: the far service's hello). */
  open: 1,
  /** One JSON frame of the service socket, without its newline. */
  line: 2,
  /** One binary output frame (preload/output-frame.ts). */
  binary: 3,
  /** Either way: the channel ended (payload: one sentence). */
  close: 4,
  /** Channel 0, either way: still here (the link is down after LINK_SILENT_MS without one). */
  ping: 5,
} as const;

export type FrameKind = (typeof FRAME)[keyof typeof FRAME];

/** The service socket's own line limit (16 MiB) and a frame's header. */
export const MAX_LINK_FRAME = 16 * 1024 * 1024 + 5;

/** Bytes skipped before a hello line at most (a chatty far shell), and a hello line's own limit. */
export const HELLO_MAX = 64 * 1024;

export const PING_MS = 5_000;
export const LINK_SILENT_MS = 15_000;

/** The most channels one link carries (a window each, and the home service's own). */
export const MAX_CHANNELS = 256;

export const BRIDGE_MARK = 'TD-BRIDGE ';
export const LINK_MARK = 'TD-LINK ';

/** What the bridge says first: who it is, and the far service it reached (or why not). */
export interface BridgeHello {
  bridge: number;
  version: string;
  protocol: number;
  hostname: string;
  /** The far service's hello, once the bridge has reached it. */
  service?: { pid: number; startedAt: string; version: string; protocol: number };
  /** Why the bridge could not reach its service (one sentence); the link ends after the hello. */
  error?: string;
}

/** What the home side says first. */
export interface LinkHello {
  bridge: number;
  version: string;
  protocol: number;
}

/** What a channel is opened as (the far service connection's hello, without the token the bridge adds). */
export interface OpenSpec {
  client: 'serve' | 'cli';
  binary?: boolean;
  cwd?: string;
}

export function encodeFrame(kind: FrameKind, channel: number, payload: Buffer | string = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const out = Buffer.allocUnsafe(9 + body.length);
  writeHead(out, kind, channel, body.length);
  body.copy(out, 9);
  return out;
}

/** A frame's 9 bytes before a payload of `length` bytes: written before the payload itself, so a large payload is not copied. */
export function frameHead(kind: FrameKind, channel: number, length: number): Buffer {
  return writeHead(Buffer.allocUnsafe(9), kind, channel, length);
}

function writeHead(out: Buffer, kind: FrameKind, channel: number, length: number): Buffer {
  out.writeUInt32BE(5 + length, 0);
  out[4] = kind;
  out.writeUInt32BE(channel, 5);
  return out;
}

export function helloLine(mark: string, hello: object): string {
  return mark + JSON.stringify(hello) + '\n';
}

/** A hello's JSON, checked: the object, or the sentence saying what is wrong with it. */
export function parseBridgeHello(json: string): BridgeHello | string {
  let v: Partial<BridgeHello> | null;
  try {
    v = JSON.parse(json) as Partial<BridgeHello>;
  } catch {
    return 'its hello is not JSON';
  }
  if (!v || typeof v !== 'object') return 'its hello is not an object';
  if (typeof v.bridge !== 'number' || !Number.isSafeInteger(v.bridge)) return 'its hello has no bridge protocol';
  if (typeof v.version !== 'string' || v.version.length > 64) return 'its hello has no version';
  if (typeof v.protocol !== 'number' || !Number.isSafeInteger(v.protocol)) return 'its hello has no protocol';
  const out: BridgeHello = { bridge: v.bridge, version: v.version, protocol: v.protocol, hostname: typeof v.hostname === 'string' ? v.hostname.replace(/[^\x20-\x7e]/g, '').slice(0, 255) : '' };
  const s = v.service;
  if (s && typeof s === 'object' && Number.isSafeInteger(s.pid) && typeof s.startedAt === 'string' && typeof s.version === 'string' && Number.isSafeInteger(s.protocol)) {
    out.service = { pid: s.pid, startedAt: s.startedAt.slice(0, 64), version: s.version.slice(0, 64), protocol: s.protocol };
  }
  if (typeof v.error === 'string') out.error = v.error.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, 500);
  return out;
}

export function parseLinkHello(json: string): LinkHello | string {
  let v: Partial<LinkHello> | null;
  try {
    v = JSON.parse(json) as Partial<LinkHello>;
  } catch {
    return 'the link\'s hello is not JSON';
  }
  if (!v || typeof v !== 'object' || typeof v.bridge !== 'number' || typeof v.version !== 'string' || typeof v.protocol !== 'number') return 'the link\'s hello is not {"bridge":N,"version":"…","protocol":N}';
  return { bridge: v.bridge, version: v.version.slice(0, 64), protocol: v.protocol };
}

export function parseOpenSpec(payload: Buffer): OpenSpec | string {
  let v: Partial<OpenSpec> | null;
  try {
    v = JSON.parse(payload.toString('utf8')) as Partial<OpenSpec>;
  } catch {
    return 'the open frame is not JSON';
  }
  if (!v || typeof v !== 'object' || (v.client !== 'serve' && v.client !== 'cli')) return 'the open frame names no client: send {"client":"serve"} or {"client":"cli"}';
  const out: OpenSpec = { client: v.client };
  if (v.binary === true) out.binary = true;
  if (typeof v.cwd === 'string' && v.cwd.startsWith('/') && v.cwd.length <= 4096 && !/[\0\n\r]/.test(v.cwd)) out.cwd = v.cwd;
  return out;
}

/**
 * Reads a link's stream: the other side's hello line (skipping what comes before it), then
 * frames. `fail` is called once with a sentence when the stream breaks the rules (a frame too
 * long, a kind not known, no hello within HELLO_MAX); nothing is read after it.
 */
export class LinkReader {
  /** Before the hello: what came so far. */
  private buf: Buffer = Buffer.alloc(0);
  /** After it: a partial frame, joined once it is whole. */
  private readonly left = new Leftover();
  private helloSeen = false;
  private dead = false;
  private readonly mark: string;
  private readonly onHello: (json: string) => void;
  private readonly onFrame: (kind: FrameKind, channel: number, payload: Buffer) => void;
  private readonly onFail: (why: string) => void;
  /** What came before the hello (a far shell's chatter, or an error printed instead of one). */
  skipped = '';

  constructor(mark: string, onHello: (json: string) => void, onFrame: (kind: FrameKind, channel: number, payload: Buffer) => void, onFail: (why: string) => void) {
    this.mark = mark;
    this.onHello = onHello;
    this.onFrame = onFrame;
    this.onFail = onFail;
  }

  push(chunk: Buffer): void {
    if (this.dead || chunk.length === 0) return;
    if (this.helloSeen) return this.frames(chunk);
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (!this.helloSeen && !this.dead) {
      const nl = this.buf.indexOf(10);
      if (nl < 0) {
        if (this.buf.length + this.skipped.length > HELLO_MAX) this.fail('it sent no hello: is what runs there terminal-delight\'s bridge?');
        return;
      }
      const line = this.buf.subarray(0, nl).toString('utf8');
      this.buf = this.buf.subarray(nl + 1);
      const at = line.indexOf(this.mark);
      if (at >= 0) {
        this.helloSeen = true;
        this.onHello(line.slice(at + this.mark.length));
      } else {
        this.skipped += line + '\n';
        if (this.skipped.length > HELLO_MAX) this.fail('it sent no hello: is what runs there terminal-delight\'s bridge?');
      }
    }
    const rest = this.buf;
    this.buf = Buffer.alloc(0);
    if (!this.dead && rest.length > 0) this.frames(rest);
  }

  /** Frames from a chunk; a partial frame's parts are kept and joined once, when it is whole (a 64 KiB frame comes in several reads of ssh's output). */
  private frames(chunk: Buffer): void {
    const buf = this.left.take(chunk);
    if (!buf) return;
    let at = 0;
    let need = 0;
    while (!this.dead && buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (len < 5 || len > MAX_LINK_FRAME) return this.fail(`it sent a frame of ${len} bytes, outside 5 to ${MAX_LINK_FRAME}`);
      if (buf.length - at - 4 < len) {
        need = 4 + len;
        break;
      }
      const kind = buf[at + 4]!;
      if (kind < FRAME.open || kind > FRAME.ping) return this.fail(`it sent a frame of kind ${kind}, which no link knows`);
      const channel = buf.readUInt32BE(at + 5);
      const payload = buf.subarray(at + 9, at + 4 + len);
      at += 4 + len;
      this.onFrame(kind as FrameKind, channel, payload);
    }
    if (!this.dead && at < buf.length) this.left.keep(buf.subarray(at), need);
  }

  private fail(why: string): void {
    this.dead = true;
    this.buf = Buffer.alloc(0);
    this.left.clear();
    this.onFail(why);
  }
}
