import { describe, expect, it } from 'vitest';
import { titleName, visibleText } from './visible.ts';

describe('visibleText', () => {
  it('shows C0 controls and DEL as Control Pictures, and drops C1 controls', () => {
    expect(visibleText('a\u0000b\u0007c\u001bd')).toBe('a\u2400b\u2407c\u241bd');
    expect(visibleText('tab\there\nline\r')).toBe('tab\u2409here\u240aline\u240d');
    expect(visibleText('del\u007f')).toBe('del\u2421');
    expect(visibleText('csi\u009b31m\u0085')).toBe('csi31m');
  });

  it('leaves every other character alone', () => {
    const s = 'Cache eviction · LRU — 3× fewer misses ✓ 日本 🙂 \u2028';
    expect(visibleText(s)).toBe(s);
  });
});

describe('titleName', () => {
  it('drops the spinner glyphs agents put before their title while they work', () => {
    for (const g of ['✳', '✶', '✻', '✽', '✢', '·', '⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏', '⠂', '⠐', '⣾', '⣽']) {
      expect(titleName(`${g} Fix the cache`), g).toBe('Fix the cache');
      expect(titleName(`${g}Claude Code`), g).toBe('Claude Code');
    }
    expect(titleName('⠋ ✳  Review · the diff')).toBe('Review · the diff');
    expect(titleName('✳')).toBe('');
  });

  it('keeps every other title as it came, glyphs inside it too', () => {
    for (const t of ['Claude Code', 'bash: ~/src', '* starred', '✓ done', 'vim ✳ notes.md', '  leading spaces', '🙂 hi', '']) expect(titleName(t)).toBe(t);
  });
});
