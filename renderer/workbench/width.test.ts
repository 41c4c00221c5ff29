import { describe, expect, it } from 'vitest';
import { BENCH_WIDTH, dragWidth, savedWidth, saveWidth } from './width.ts';

describe('bench width', () => {
  it('grows when the edge moves left, within bounds and the pane', () => {
    expect(dragWidth(400, 1000, 900, 1600)).toBe(500);
    expect(dragWidth(400, 1000, 1300, 1600)).toBe(BENCH_WIDTH.min);
    expect(dragWidth(400, 1000, 0, 1600)).toBe(BENCH_WIDTH.max);
    expect(dragWidth(400, 1000, 0, 700)).toBe(500);
  });
  it('remembers a sane width and ignores junk', () => {
    const m = new Map<string, string>();
    const store = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    expect(savedWidth(store)).toBeNull();
    saveWidth(480, store);
    expect(savedWidth(store)).toBe(480);
    m.set(BENCH_WIDTH.key, 'wide');
    expect(savedWidth(store)).toBeNull();
    m.set(BENCH_WIDTH.key, '5');
    expect(savedWidth(store)).toBeNull();
    expect(savedWidth(undefined)).toBeNull();
  });
});
