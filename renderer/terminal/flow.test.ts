import { describe, expect, it } from 'vitest';
import { FLOW } from '../../preload/contract.ts';
import { Acker, WRITE_PIECE_CHARS, writePieces } from './flow.ts';

describe('Acker', () => {
  it('acknowledges in chunks of FLOW.ackChunkChars', () => {
    const sent: number[] = [];
    const a = new Acker((n) => sent.push(n));
    a.written(FLOW.ackChunkChars - 1);
    expect(sent).toEqual([]);
    a.written(1);
    expect(sent).toEqual([FLOW.ackChunkChars]);
    a.written(3 * FLOW.ackChunkChars + 7);
    expect(sent).toEqual([FLOW.ackChunkChars, 3 * FLOW.ackChunkChars + 7]);
    expect(a.unacknowledged).toBe(0);
  });
  it('keeps the remainder below a chunk, so the core stays under its low watermark', () => {
    const sent: number[] = [];
    const a = new Acker((n) => sent.push(n), 10);
    for (let i = 0; i < 25; i++) a.written(1);
    expect(sent).toEqual([10, 10]);
    expect(a.unacknowledged).toBe(5);
    expect(a.unacknowledged).toBeLessThan(FLOW.lowWatermarkChars);
    a.flush();
    expect(sent).toEqual([10, 10, 5]);
    a.flush();
    expect(sent).toEqual([10, 10, 5]);
  });
  it('ignores zero, negative and NaN counts', () => {
    const sent: number[] = [];
    const a = new Acker((n) => sent.push(n), 1);
    a.written(0);
    a.written(-5);
    a.written(Number.NaN);
    expect(sent).toEqual([]);
  });
});

describe('writePieces', () => {
  it('hands a batch to xterm in pieces of at most WRITE_PIECE_CHARS, in order, nothing lost', () => {
    const data = Array.from({ length: 5000 }, (_, i) => `\x1b[3${i % 8}mline ${i}\x1b[0m\r\n`).join('');
    const pieces = writePieces(data);
    expect(pieces.length).toBe(Math.ceil(data.length / WRITE_PIECE_CHARS));
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(WRITE_PIECE_CHARS);
    expect(pieces.join('')).toBe(data);
    // What fits is one write, as it came.
    expect(writePieces('td$ ')).toEqual(['td$ ']);
    expect(writePieces('x'.repeat(WRITE_PIECE_CHARS))).toHaveLength(1);
  });

  it('never cuts a character outside the BMP in two', () => {
    // An emoji (two UTF-16 units) across every piece's end.
    const data = ('a'.repeat(9) + '😀').repeat(50);
    const pieces = writePieces(data, 10);
    expect(pieces.join('')).toBe(data);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(11);
      const first = p.charCodeAt(0);
      const last = p.charCodeAt(p.length - 1);
      expect(first >= 0xdc00 && first <= 0xdfff, `piece begins with a low surrogate: ${JSON.stringify(p)}`).toBe(false);
      expect(last >= 0xd800 && last <= 0xdbff, `piece ends with a high surrogate: ${JSON.stringify(p)}`).toBe(false);
    }
  });
});
