import { describe, expect, it } from 'vitest';
import { FLOW } from '../../preload/contract.ts';
import { Acker } from './flow.ts';

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
