import { describe, expect, it } from 'vitest';
import { shownSentence } from './sentence.ts';

describe('shownSentence', () => {
  it('starts a sentence with a capital and ends it with a full stop, once', () => {
    expect(shownSentence('that code is wrong: 4 tries left; check the code the desktop shows')).toBe('That code is wrong: 4 tries left; check the code the desktop shows.');
    expect(shownSentence('Saved.')).toBe('Saved.');
    expect(shownSentence('  is it there?  ')).toBe('Is it there?');
    expect(shownSentence('')).toBe('');
  });
});
