import { describe, expect, it } from 'vitest';
import { codeSpans } from './code-spans.ts';

describe('codeSpans', () => {
  it('shows the command in the stopped sentence as code, without its backticks', () => {
    expect(codeSpans('The service was stopped with `terminal-delight service stop`.')).toEqual([
      { text: 'The service was stopped with ', code: false },
      { text: 'terminal-delight service stop', code: true },
      { text: '.', code: false },
    ]);
  });

  it('keeps plain text, several quotes, quotes at either end, and a lone backtick as they are', () => {
    expect(codeSpans('no quotes here')).toEqual([{ text: 'no quotes here', code: false }]);
    expect(codeSpans('')).toEqual([]);
    expect(codeSpans('`a` then `b`')).toEqual([{ text: 'a', code: true }, { text: ' then ', code: false }, { text: 'b', code: true }]);
    expect(codeSpans('one ` alone')).toEqual([{ text: 'one ` alone', code: false }]);
    expect(codeSpans('empty `` pair')).toEqual([{ text: 'empty `` pair', code: false }]);
  });
});
