import { describe, expect, it } from 'vitest';
import { commandText, durationText } from '../../common/command-text.ts';
import { promptTarget } from './prompts.ts';

describe('durationText', () => {
  it('says how long in a few characters, tenths under 10 s', () => {
    expect(durationText(0)).toBe('0.0 s');
    expect(durationText(449)).toBe('0.4 s');
    expect(durationText(1234)).toBe('1.2 s');
    expect(durationText(9_949)).toBe('9.9 s');
    expect(durationText(12_400)).toBe('12 s');
    expect(durationText(60_000)).toBe('1 min');
    expect(durationText(185_000)).toBe('3 min 5 s');
    expect(durationText(2 * 3600_000 + 4 * 60_000)).toBe('2 h 4 min');
    expect(durationText(3600_000)).toBe('1 h');
    expect(durationText(-1)).toBe('');
    expect(durationText(Number.NaN)).toBe('');
  });

  it('puts the status first', () => {
    expect(commandText(2, 1234)).toBe('exit 2 · 1.2 s');
  });
});

describe('promptTarget', () => {
  // Prompts at lines 10, 40 and 95; 30 rows shown; at the bottom the viewport's top is 80.
  const lines = [10, 40, 95];

  it('from the bottom, "previous" is the command before the one being typed', () => {
    expect(promptTarget(lines, 80, 80, -1)).toBe(40);
    expect(promptTarget(lines, 40, 80, -1)).toBe(10);
    expect(promptTarget(lines, 10, 80, -1)).toBeUndefined();
    expect(promptTarget(lines, 25, 80, -1)).toBe(10);
  });

  it('"next" goes down prompt by prompt, then back to the bottom', () => {
    expect(promptTarget(lines, 10, 80, 1)).toBe(40);
    expect(promptTarget(lines, 40, 80, 1)).toBe('bottom');
    expect(promptTarget(lines, 80, 80, 1)).toBeUndefined();
    expect(promptTarget(lines, 0, 80, 1)).toBe(10);
  });

  it('does nothing without prompts, except going back to the bottom', () => {
    expect(promptTarget([], 20, 80, -1)).toBeUndefined();
    expect(promptTarget([], 20, 80, 1)).toBe('bottom');
    expect(promptTarget([], 80, 80, 1)).toBeUndefined();
  });

  it('from the bottom with the last prompt scrolled off (a long output), "previous" is that prompt', () => {
    expect(promptTarget([10, 40], 80, 80, -1)).toBe(40);
  });
});
