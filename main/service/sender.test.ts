import { describe, expect, it } from 'vitest';
import { binaryHeader, FrameSplitter } from '../clients/frames.ts';
import { FrameSender, type SocketLike } from './sender.ts';

/** A socket that holds what it is given until the test lets it go, as a slow reader's does. */
function socket() {
  const held: Buffer[] = [];
  const s: SocketLike & { take(): Buffer; held: Buffer[] } = {
    held,
    get writableLength() {
      return held.reduce((a, b) => a + b.length, 0);
    },
    write(d: string | Buffer) {
      held.push(typeof d === 'string' ? Buffer.from(d) : d);
    },
    cork() {},
    uncork() {},
    take() {
      return Buffer.concat(held.splice(0));
    },
  };
  return s;
}

/** What a reader makes of the bytes: lines, and frames named by their first byte's text. */
function read(bytes: Buffer): string[] {
  const out: string[] = [];
  new FrameSplitter((l) => out.push(l.toString()), (f) => out.push(f.toString()), () => { throw new Error('overflow'); }, 1 << 20).push(bytes);
  return out;
}

describe('the frame sender', () => {
  it('lets a quiet pane\'s output pass floods queued before it, keeps each pane in order, and never reorders lines', () => {
    const s = socket();
    const send = new FrameSender(s, binaryHeader, 100);
    for (let i = 0; i < 5; i++) send.output('a', Buffer.from(`a${i}`.padEnd(60, '.')));
    for (let i = 0; i < 5; i++) send.output('b', Buffer.from(`b${i}`.padEnd(60, '.')));
    send.output('q', Buffer.from('q-echo'));
    send.line('{"t":"res","id":1}');
    send.output('q', Buffer.from('q-after-line'));
    // The socket took two frames (it is over 100 bytes after them); the rest waits here.
    expect(send.queued).toBeGreaterThan(0);
    const got: string[] = [];
    for (let i = 0; i < 20 && (s.held.length || send.queued); i++) {
      got.push(...read(s.take()));
      send.pump();
    }
    const short = got.map((g) => g.replace(/\.+$/, ''));
    // q's echo comes as soon as the socket has room, ahead of the floods; the line after everything before it.
    expect(short.indexOf('q-echo')).toBeLessThan(short.indexOf('a2'));
    expect(short.indexOf('q-echo')).toBeLessThan(short.indexOf('b1'));
    expect(short.indexOf('{"t":"res","id":1}')).toBe(11);
    expect(short[12]).toBe('q-after-line');
    expect(short.filter((x) => x.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(short.filter((x) => x.startsWith('b'))).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    expect(send.queued).toBe(0);
  });

  it('writes at once while the socket has room', () => {
    const s = socket();
    const send = new FrameSender(s, binaryHeader, 1 << 20);
    send.line('{"t":"evt"}');
    send.output('p', Buffer.from('x'));
    expect(send.queued).toBe(0);
    expect(read(s.take())).toEqual(['{"t":"evt"}', 'x']);
  });
});
