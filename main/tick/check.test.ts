import { describe, expect, it } from 'vitest';
import { formatResults, printable } from './check.ts';

describe('tick check output', () => {
  it('shows control characters from a Tick or a package as \\xNN, never raw on the terminal', () => {
    expect(printable('plain — ünïcode ✓')).toBe('plain — ünïcode ✓');
    expect(printable('red\u001b[31m bell\u0007 c1\u009b tab\t')).toBe('red\\x1b[31m bell\\x07 c1\\x9b tab\\x09');
    expect(formatResults([{ rule: 'a rule', status: 'fail', detail: 'error -32602 (\u001b]0;owned\u0007)' }])).toBe('FAIL  a rule — error -32602 (\\x1b]0;owned\\x07)');
  });
});
