import { describe, expect, it } from 'vitest';
import { decodeOutputFrame } from '../../preload/output-frame.ts';
import { binaryHeader, encodeOutputFrame, FrameSplitter } from './frames.ts';

describe('binary output frames', () => {
  it('carry a pane\'s output (any text: escapes, newlines, wide characters, emoji) and its length in UTF-16 units', () => {
    for (const data of ['', 'plain', '\x1b[31mred\x1b[0m\r\n', 'a\nb\0c', '世界 😀 e\u0301', 'x'.repeat(200_000)]) {
      const f = encodeOutputFrame('p0abc', data);
      expect(decodeOutputFrame(new Uint8Array(f))).toEqual({ paneId: 'p0abc', data });
      expect(f.readUInt32BE(2 + 5)).toBe(data.length);
    }
  });

  it('are told apart from anything else', () => {
    expect(decodeOutputFrame(new TextEncoder().encode('{"t":"evt"}'))).toBeUndefined();
    expect(decodeOutputFrame(new Uint8Array([1, 0, 0, 0, 0, 0]))).toBeUndefined();
    expect(decodeOutputFrame(new Uint8Array([1, 9, 65]))).toBeUndefined();
  });

  it('come out of the service socket\'s bytes whole and in order among JSON lines, however the reads cut them', () => {
    const items: Array<{ line: string } | { frame: Buffer }> = [];
    const parts: Buffer[] = [];
    for (let i = 0; i < 300; i++) {
      if (i % 3 === 0) {
        const frame = encodeOutputFrame(`p${i}`, `out ${i}\n`.repeat(i * 7));
        items.push({ frame });
        parts.push(binaryHeader(frame.length), frame);
      } else {
        const line = JSON.stringify({ t: 'evt', name: 'x', payload: { i, s: 'é'.repeat(i) } });
        items.push({ line });
        parts.push(Buffer.from(line + '\n'));
      }
    }
    const all = Buffer.concat(parts);
    for (const cut of [1, 3, 7, 1000, 65536, all.length]) {
      const got: Array<{ line: string } | { frame: Buffer }> = [];
      const s = new FrameSplitter((l) => got.push({ line: l.toString() }), (f) => got.push({ frame: Buffer.from(f) }), () => { throw new Error('overflow'); }, 1 << 24);
      for (let at = 0; at < all.length; at += cut) s.push(all.subarray(at, at + cut));
      expect(got).toEqual(items);
    }
  });

  it('say so once when a line or a frame is longer than allowed', () => {
    let overflows = 0;
    const s = new FrameSplitter(() => {}, () => {}, () => overflows++, 100);
    s.push(Buffer.concat([binaryHeader(101), Buffer.alloc(10)]));
    s.push(Buffer.from('more'));
    expect(overflows).toBe(1);
    const t = new FrameSplitter(() => {}, () => {}, () => overflows++, 100);
    t.push(Buffer.from('x'.repeat(150)));
    expect(overflows).toBe(2);
  });
});
