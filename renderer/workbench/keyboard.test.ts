import { describe, expect, it } from 'vitest';
import { benchCommand } from './keyboard.ts';

const out = { inText: false };
const inText = { inText: true };

describe('benchCommand', () => {
  it('moves between shelves with [ ] and Ctrl+Alt+arrows', () => {
    expect(benchCommand({ key: '[' }, out)).toBe('shelf-prev');
    expect(benchCommand({ key: ']' }, out)).toBe('shelf-next');
    expect(benchCommand({ key: 'ArrowLeft', ctrlKey: true, altKey: true }, out)).toBe('shelf-prev');
    expect(benchCommand({ key: 'ArrowRight', ctrlKey: true, altKey: true }, inText)).toBe('shelf-next');
  });
  it('moves between cards with j/k and arrows', () => {
    expect(benchCommand({ key: 'j' }, out)).toBe('card-next');
    expect(benchCommand({ key: 'ArrowDown' }, out)).toBe('card-next');
    expect(benchCommand({ key: 'k' }, out)).toBe('card-prev');
    expect(benchCommand({ key: 'ArrowUp' }, out)).toBe('card-prev');
  });
  it('acts with a, r, c, o, x and leaves with Escape', () => {
    expect(benchCommand({ key: 'a' }, out)).toBe('approve');
    expect(benchCommand({ key: 'r' }, out)).toBe('reject');
    expect(benchCommand({ key: 'c' }, out)).toBe('comment');
    expect(benchCommand({ key: 'o' }, out)).toBe('open');
    expect(benchCommand({ key: 'x' }, out)).toBe('dismiss');
    expect(benchCommand({ key: 'Escape' }, out)).toBe('escape');
  });
  it('types letters in a text field instead of acting', () => {
    for (const key of ['a', 'r', 'c', 'j', 'k', '[', ']', 'x']) expect(benchCommand({ key }, inText)).toBeNull();
    expect(benchCommand({ key: 'Enter' }, inText)).toBe('send');
    expect(benchCommand({ key: 'Enter', shiftKey: true }, inText)).toBeNull();
    expect(benchCommand({ key: 'Escape' }, inText)).toBe('leave-composer');
  });
  it('leaves modified keys and IME composition alone', () => {
    expect(benchCommand({ key: 'a', ctrlKey: true }, out)).toBeNull();
    expect(benchCommand({ key: 'r', metaKey: true }, out)).toBeNull();
    expect(benchCommand({ key: 'Enter', isComposing: true }, inText)).toBeNull();
    expect(benchCommand({ key: 'Escape', ctrlKey: true }, out)).toBeNull();
  });
});
