import { describe, expect, it } from 'vitest';
import { shownSentence } from './sentence.ts';

describe('shownSentence', () => {
  it('starts a sentence with a capital and ends it with a full stop, once', () => {
    expect(shownSentence('that code is wrong: 4 tries left; check the code the desktop shows')).toBe('That code is wrong: 4 tries left; check the code the desktop shows.');
    expect(shownSentence('Saved.')).toBe('Saved.');
    expect(shownSentence('  is it there?  ')).toBe('Is it there?');
    expect(shownSentence('')).toBe('');
  });

  it('leaves a first word that is a name as written as it is', () => {
    expect(shownSentence('far-box is unreachable (reconnecting): nothing was sent')).toBe('far-box is unreachable (reconnecting): nothing was sent.');
    expect(shownSentence('settings.json is not JSON')).toBe('settings.json is not JSON.');
    expect(shownSentence('worktreeFolder must be a folder')).toBe('worktreeFolder must be a folder.');
    expect(shownSentence('this device was revoked: pair it again')).toBe('This device was revoked: pair it again.');
  });
});
