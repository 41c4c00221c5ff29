import { describe, expect, it } from 'vitest';
import { encodedSize } from './limits.ts';
import { itemBudget, trimForDelivery, trimState } from './trim.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('trimState', () => {
  it('leaves state within budget untouched', () => {
    for (const data of [null, 0, 'x', [], {}, { value: 3, recent: [{ seq: 1 }] }]) {
      const t = trimState(data);
      expect(t).toMatchObject({ data, trimmed: false, cuts: [], moreCuts: 0 });
      expect(t.bytes).toBe(encodedSize({ data, trimmed: false, cuts: [], moreCuts: 0 }));
    }
  });

  it('keeps the newest end of a declared series (last)', () => {
    const t = trimState({ recent: range(10_000) }, [{ path: '/recent', newest: 'last' }]);
    const recent = (t.data as { recent: number[] }).recent;
    expect(recent.at(-1)).toBe(9999);
    expect(recent).toEqual(range(10_000).slice(10_000 - recent.length));
    expect(t.cuts).toEqual([{ path: '/recent', what: 'oldest-items', removed: 10_000 - recent.length, kept: recent.length }]);
    expect(t.bytes).toBeLessThanOrEqual(16 * 1024);
    expect(t.bytes).toBeGreaterThan(15 * 1024); // uses the budget, not a fraction of it
  });

  it('keeps the newest end of a declared series (first), including data itself ("")', () => {
    const t = trimState(range(10_000), [{ path: '', newest: 'first' }]);
    const kept = t.data as number[];
    expect(kept[0]).toBe(0);
    expect(kept).toEqual(range(kept.length));
    expect(t.cuts[0]).toMatchObject({ path: '', what: 'oldest-items' });
  });

  it('keeps the beginning and the end of an undeclared array', () => {
    const t = trimState({ rows: range(10_000) });
    const rows = (t.data as { rows: number[] }).rows;
    const head = Math.ceil(rows.length / 2);
    expect(rows.slice(0, head)).toEqual(range(head));
    expect(rows.slice(head)).toEqual(range(10_000).slice(10_000 - (rows.length - head)));
    expect(t.cuts).toEqual([{ path: '/rows', what: 'middle-items', removed: 10_000 - rows.length, kept: rows.length }]);
  });

  it('trims long strings and says how many characters went', () => {
    const t = trimState({ text: 'a'.repeat(100_000) });
    const text = (t.data as { text: string }).text;
    expect(text.endsWith('…')).toBe(true);
    expect(t.cuts).toEqual([{ path: '/text', what: 'end-of-string', removed: 100_000 - (text.length - 1), kept: text.length - 1 }]);
    expect(t.bytes).toBeLessThanOrEqual(16 * 1024);
  });

  it('never splits a surrogate pair', () => {
    const t = trimState({ text: '😀'.repeat(50_000) });
    const text = (t.data as { text: string }).text;
    expect(text.slice(0, -1)).toMatch(/^(😀)*$/u);
  });

  it('trims objects with many keys, escaping pointer tokens', () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) data[`k/${i}~`] = 'v'.repeat(10);
    const t = trimState({ 'a/b': data });
    expect(t.bytes).toBeLessThanOrEqual(16 * 1024);
    expect(t.cuts[0]).toMatchObject({ path: '/a~1b', what: 'last-keys' });
  });

  it('trims nested arrays and reports every cut, counting those past 16', () => {
    const data = { groups: range(40).map((g) => ({ name: `g${g}`, items: range(200).map((i) => ({ i, text: 'x'.repeat(40) })) })) };
    const t = trimState(data, [{ path: '/groups', newest: 'last' }]);
    expect(t.bytes).toBeLessThanOrEqual(16 * 1024);
    expect(t.cuts.length).toBeLessThanOrEqual(16);
    expect(t.cuts[0]).toMatchObject({ path: '/groups', what: 'oldest-items' });
    const groups = (t.data as { groups: Array<{ name: string }> }).groups;
    expect(groups.at(-1)!.name).toBe('g39');
    expect(t.cuts.length + t.moreCuts).toBeGreaterThan(1);
  });

  it('is deterministic', () => {
    const data = { a: range(3000), b: 'q'.repeat(30_000), c: { d: range(500).map(String) } };
    const one = trimState(data, [{ path: '/a', newest: 'last' }]);
    const two = trimState(structuredClone(data), [{ path: '/a', newest: 'last' }]);
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
  });

  it('fits every budget from tiny to large, for many shapes', () => {
    const shapes: unknown[] = [
      range(5000),
      'z'.repeat(50_000),
      { deep: { deeper: { deepest: range(3000).map((i) => ({ i, s: 'é'.repeat(i % 50) })) } } },
      range(100).map(() => range(100)),
      { many: Object.fromEntries(range(3000).map((i) => [`key${i}`, i])) },
    ];
    for (const data of shapes) {
      for (const budget of [200, 1024, 4096, 16 * 1024]) {
        const t = trimState(data, [], budget);
        expect(t.bytes).toBeLessThanOrEqual(budget);
        expect(t.bytes).toBe(encodedSize({ data: t.data, trimmed: t.trimmed, cuts: t.cuts, moreCuts: t.moreCuts }));
        expect(t.trimmed).toBe(true);
      }
    }
  });

  it('delivers a note alone when even the emptied value does not fit', () => {
    const t = trimState({ a: 1 }, [], 10);
    expect(t).toMatchObject({ data: null, trimmed: true });
  });
});

describe('trimForDelivery', () => {
  it('gives 16 KiB to one item and 4 KiB to each of several, never more than 16 KiB in all', () => {
    expect(itemBudget(1)).toBe(16 * 1024);
    expect(itemBudget(2)).toBe(4 * 1024);
    expect(itemBudget(4)).toBe(4 * 1024);
    expect(itemBudget(8)).toBe(2 * 1024);
    const items = range(3).map(() => ({ data: { rows: range(5000) } }));
    const out = trimForDelivery(items);
    for (const t of out) expect(t.bytes).toBeLessThanOrEqual(4 * 1024);
    expect(out.reduce((s, t) => s + t.bytes, 0)).toBeLessThanOrEqual(16 * 1024);
    expect(trimForDelivery([{ data: { rows: range(5000) } }])[0].bytes).toBeGreaterThan(4 * 1024);
  });
});
