import { describe, expect, it } from 'vitest';
import { readable, VIEW_MIN } from './view.ts';

describe('readable', () => {
  it('is true from VIEW_MIN rows and columns on, false under either', () => {
    expect(readable({ cols: VIEW_MIN.cols, rows: VIEW_MIN.rows })).toBe(true);
    expect(readable({ cols: 120, rows: 40 })).toBe(true);
    expect(readable({ cols: VIEW_MIN.cols - 1, rows: 40 })).toBe(false);
    expect(readable({ cols: 120, rows: VIEW_MIN.rows - 1 })).toBe(false);
    expect(readable({ cols: 0, rows: 0 })).toBe(false);
  });
});
