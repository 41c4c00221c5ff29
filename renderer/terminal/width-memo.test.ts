import { describe, expect, it } from 'vitest';
import { forgetWidths, memoWidth, widthKey } from './width-memo.ts';

describe('the window\'s memo of glyph widths', () => {
  it('measures a width once for every terminal, and again after a font loads', () => {
    forgetWidths();
    let measured = 0;
    const measure = () => { measured++; return 8.4; };
    const key = widthKey('monospace', 13, 'normal', 'bold', 0, 1, 'W');
    expect(memoWidth(key, measure)).toBe(8.4);
    expect(memoWidth(key, measure)).toBe(8.4);
    expect(measured).toBe(1);
    forgetWidths();
    expect(memoWidth(key, measure)).toBe(8.4);
    expect(measured).toBe(2);
  });

  it('keeps apart what the width depends on: font, size, weights, variant, pixel ratio, character', () => {
    const keys = [
      widthKey('monospace', 13, 'normal', 'bold', 0, 1, 'W'),
      widthKey('serif', 13, 'normal', 'bold', 0, 1, 'W'),
      widthKey('monospace', 14, 'normal', 'bold', 0, 1, 'W'),
      widthKey('monospace', 13, 300, 'bold', 0, 1, 'W'),
      widthKey('monospace', 13, 'normal', 600, 0, 1, 'W'),
      widthKey('monospace', 13, 'normal', 'bold', 1, 1, 'W'),
      widthKey('monospace', 13, 'normal', 'bold', 0, 2, 'W'),
      widthKey('monospace', 13, 'normal', 'bold', 0, 1, 'i'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('keeps no width of 0 (a span not laid out), so the next terminal measures again', () => {
    forgetWidths();
    let measured = 0;
    const key = widthKey('monospace', 13, 'normal', 'bold', 0, 1, 'x');
    memoWidth(key, () => { measured++; return 0; });
    expect(memoWidth(key, () => { measured++; return 7; })).toBe(7);
    expect(measured).toBe(2);
  });
});
