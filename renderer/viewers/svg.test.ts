import { describe, expect, it } from 'vitest';
import { svgAspect } from './DiagramFrame.tsx';

describe('svgAspect', () => {
  it('reads the aspect from the viewBox, else from width and height', () => {
    expect(svgAspect('<svg viewBox="0 0 200 100"></svg>')).toBe(0.5);
    expect(svgAspect('<svg viewBox="-8 -8, 400, 300"></svg>')).toBe(0.75);
    expect(svgAspect('<svg width="100" height="300"></svg>')).toBe(3);
    expect(svgAspect('<svg></svg>')).toBeUndefined();
    expect(svgAspect('<svg viewBox="0 0 0 0"></svg>')).toBeUndefined();
  });
});
