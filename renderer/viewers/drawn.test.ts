import { describe, expect, it } from 'vitest';
import { drawnBefore, drawnKept, keepDrawn } from './drawn.ts';

describe('drawn diagrams', () => {
  it('gives a drawing back for the same format, theme and source only, and forgets the least recently used past its budget', () => {
    keepDrawn('mermaid', 'dark', 'graph TD; A-->B', '<svg>a</svg>');
    expect(drawnBefore('Mermaid', 'dark', 'graph TD; A-->B')).toBe('<svg>a</svg>');
    expect(drawnBefore('mermaid', 'light', 'graph TD; A-->B')).toBeNull();
    expect(drawnBefore('mermaid', 'dark', 'graph TD; A-->C')).toBeNull();

    // Past 48 drawings the oldest unused goes; the one just read stays.
    for (let i = 0; i < 60; i++) {
      keepDrawn('svg', 'dark', `s${i}`, `<svg>${i}</svg>`);
      if (i % 10 === 0) drawnBefore('mermaid', 'dark', 'graph TD; A-->B');
    }
    expect(drawnKept().entries).toBe(48);
    expect(drawnBefore('mermaid', 'dark', 'graph TD; A-->B')).toBe('<svg>a</svg>');
    expect(drawnBefore('svg', 'dark', 's0')).toBeNull();
    expect(drawnBefore('svg', 'dark', 's59')).toBe('<svg>59</svg>');

    // Keeping the same key again replaces it without counting it twice.
    const before = drawnKept();
    keepDrawn('svg', 'dark', 's59', '<svg>59</svg>');
    expect(drawnKept()).toEqual(before);

    // A drawing larger than the whole budget is not kept, and pushes nothing out.
    keepDrawn('svg', 'dark', 'huge', `<svg>${'x'.repeat(9 * 1024 * 1024)}</svg>`);
    expect(drawnBefore('svg', 'dark', 'huge')).toBeNull();
    expect(drawnKept()).toEqual(before);

    // Big drawings push out older ones to stay within 8 MiB.
    for (let i = 0; i < 5; i++) keepDrawn('svg', 'dark', `big${i}`, `<svg>${'y'.repeat(2 * 1024 * 1024)}</svg>`);
    expect(drawnKept().chars).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(drawnBefore('svg', 'dark', 'big4')).not.toBeNull();
    expect(drawnBefore('svg', 'dark', 'big0')).toBeNull();
  });
});
