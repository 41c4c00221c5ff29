import { describe, expect, it } from 'vitest';
import { CommandDeduper } from './dedupe.ts';

function clock() {
  let t = 1000;
  return { now: () => t, tick: (ms: number) => { t += ms; } };
}

describe('CommandDeduper', () => {
  it('drops the menu echo of a key that just ran, and the key echo of a menu command', () => {
    const c = clock();
    const d = new CommandDeduper(400, c.now);
    expect(d.accept('split-right', 'key')).toBe(true);
    c.tick(20);
    expect(d.accept('split-right', 'menu')).toBe(false);
    c.tick(1000);
    expect(d.accept('zoom-in', 'menu')).toBe(true);
    c.tick(5);
    expect(d.accept('zoom-in', 'key')).toBe(false);
  });
  it('runs repeats from the same source, other commands, and late echoes', () => {
    const c = clock();
    const d = new CommandDeduper(400, c.now);
    expect(d.accept('zoom-in', 'key')).toBe(true);
    expect(d.accept('zoom-in', 'key')).toBe(true);
    expect(d.accept('zoom-out', 'menu')).toBe(true);
    c.tick(500);
    expect(d.accept('zoom-out', 'key')).toBe(true);
  });
  it('drops one echo only', () => {
    const c = clock();
    const d = new CommandDeduper(400, c.now);
    expect(d.accept('split-down', 'key')).toBe(true);
    expect(d.accept('split-down', 'menu')).toBe(false);
    expect(d.accept('split-down', 'menu')).toBe(true);
  });
});
