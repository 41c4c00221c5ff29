/**
 * Encoding `pane.output` as the binary frame of preload/output-frame.ts, and carrying binary
 * frames among the service socket's JSON lines: on the socket a binary frame is the byte 0
 * (no JSON line starts with it), its length (4 bytes, big-endian), then the frame.
 */
import { OUTPUT_FRAME } from '../../preload/output-frame.ts';

/** The frame for one `pane.output` (the pane id is 1-64 ASCII characters, as PaneService makes them). */
export function encodeOutputFrame(paneId: string, data: string): Buffer {
  const n = paneId.length;
  const bytes = Buffer.byteLength(data, 'utf8');
  const out = Buffer.allocUnsafe(2 + n + 4 + bytes);
  out[0] = OUTPUT_FRAME;
  out[1] = n;
  out.write(paneId, 2, 'latin1');
  out.writeUInt32BE(data.length, 2 + n);
  out.write(data, 2 + n + 4, 'utf8');
  return out;
}

/** Marks a binary frame on the service socket. */
export const BINARY_MARK = 0;

/** The header that goes before a binary frame on the service socket. */
export function binaryHeader(length: number): Buffer {
  const h = Buffer.allocUnsafe(5);
  h[0] = BINARY_MARK;
  h.writeUInt32BE(length, 1);
  return h;
}

/**
 * What is left of a stream's last read (a partial frame), kept in parts and joined once, when
 * there is enough for the frame it begins (`need` bytes in all; 0: not known yet, joined with
 * the next read): a 64 KiB frame that comes in many reads is copied once, not with each.
 */
export class Leftover {
  private parts: Buffer[] = [];
  private have = 0;
  private need = 0;

  /** The bytes to read now: the chunk itself, or what was left joined with it; undefined while the frame is still short. */
  take(chunk: Buffer): Buffer | undefined {
    if (this.have === 0) return chunk;
    this.parts.push(chunk);
    this.have += chunk.length;
    if (this.need > 0 && this.have < this.need) return undefined;
    const buf = Buffer.concat(this.parts, this.have);
    this.clear();
    return buf;
  }

  /** Keep `rest` (not read yet) for the next read; `need`: the whole frame's length, when known. */
  keep(rest: Buffer, need = 0): void {
    this.parts = [rest];
    this.have = rest.length;
    this.need = need;
  }

  clear(): void {
    this.parts = [];
    this.have = 0;
    this.need = 0;
  }
}

/**
 * Splits the service socket's bytes into JSON lines and binary frames, without decoding
 * them (a relay passes both on as they are). `overflow` is called once when a line or a
 * frame is longer than `max` (the caller closes the connection).
 */
export class FrameSplitter {
  private readonly left = new Leftover();
  private dead = false;
  private readonly onLine: (line: Buffer) => void;
  private readonly onBinary: (frame: Buffer) => void;
  private readonly onOverflow: () => void;
  private readonly max: number;

  constructor(onLine: (line: Buffer) => void, onBinary: (frame: Buffer) => void, onOverflow: () => void, max: number) {
    this.onLine = onLine;
    this.onBinary = onBinary;
    this.onOverflow = onOverflow;
    this.max = max;
  }

  push(chunk: Buffer): void {
    if (this.dead || chunk.length === 0) return;
    const buf = this.left.take(chunk);
    if (!buf) return;
    let at = 0;
    let need = 0;
    while (at < buf.length && !this.dead) {
      if (buf[at] === BINARY_MARK) {
        if (buf.length - at < 5) break;
        const len = buf.readUInt32BE(at + 1);
        if (len > this.max) return this.overflow();
        if (buf.length - at - 5 < len) {
          need = 5 + len;
          break;
        }
        this.onBinary(buf.subarray(at + 5, at + 5 + len));
        at += 5 + len;
      } else {
        const nl = buf.indexOf(10, at);
        if (nl < 0) {
          if (buf.length - at > this.max) return this.overflow();
          break;
        }
        if (nl > at) this.onLine(buf.subarray(at, nl));
        at = nl + 1;
      }
    }
    if (at < buf.length && !this.dead) this.left.keep(buf.subarray(at), need);
  }

  private overflow(): void {
    this.dead = true;
    this.left.clear();
    this.onOverflow();
  }
}
