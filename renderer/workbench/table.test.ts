import { describe, expect, it } from 'vitest';
import { cellNumber, cellText, nextSort, normaliseRows, sortRows } from './table.ts';

describe('cells', () => {
  it('shows any value as text', () => {
    expect(cellText(null)).toBe('');
    expect(cellText(3.5)).toBe('3.5');
    expect(cellText(true)).toBe('true');
    expect(cellText({ a: 1 })).toBe('{"a":1}');
  });
  it('reads numbers written as text', () => {
    expect(cellNumber('1,204')).toBe(1204);
    expect(cellNumber(' 42 ')).toBe(42);
    expect(cellNumber('3.5%')).toBe(3.5);
    expect(cellNumber('-2e3')).toBe(-2000);
    expect(cellNumber('v2')).toBeUndefined();
    expect(cellNumber('')).toBeUndefined();
    expect(cellNumber(Number.NaN)).toBeUndefined();
  });
});

describe('sortRows', () => {
  const rows = [
    ['b', '10', ''],
    ['a', '9', 'x'],
    ['C', 100, 'y'],
    ['a2', null, 'z'],
  ];
  it('sorts numbers numerically, empty cells last, both directions', () => {
    expect(sortRows(rows, { column: 1, dir: 'asc' }).map((r) => r[0])).toEqual(['a', 'b', 'C', 'a2']);
    expect(sortRows(rows, { column: 1, dir: 'desc' }).map((r) => r[0])).toEqual(['C', 'b', 'a', 'a2']);
  });
  it('sorts text case-insensitively and numeric-aware; stable; null keeps arrival order', () => {
    expect(sortRows(rows, { column: 0, dir: 'asc' }).map((r) => r[0])).toEqual(['a', 'a2', 'b', 'C']);
    expect(sortRows(rows, { column: 2, dir: 'desc' }).map((r) => r[0])).toEqual(['a2', 'C', 'a', 'b']);
    expect(sortRows(rows, null)).toEqual(rows);
    const same = [['x', 1], ['y', 1], ['z', 1]];
    expect(sortRows(same, { column: 1, dir: 'desc' }).map((r) => r[0])).toEqual(['x', 'y', 'z']);
  });
  it('cycles asc, desc, none on the same column and restarts on another', () => {
    expect(nextSort(null, 2)).toEqual({ column: 2, dir: 'asc' });
    expect(nextSort({ column: 2, dir: 'asc' }, 2)).toEqual({ column: 2, dir: 'desc' });
    expect(nextSort({ column: 2, dir: 'desc' }, 2)).toBeNull();
    expect(nextSort({ column: 2, dir: 'desc' }, 0)).toEqual({ column: 0, dir: 'asc' });
  });
  it('pads and cuts ragged rows to the columns', () => {
    expect(normaliseRows(['a', 'b'], [[1], [1, 2, 3], 'x'])).toEqual([[1, undefined], [1, 2], ['x', undefined]]);
    expect(normaliseRows(['a'], 'not rows')).toEqual([]);
  });
});
