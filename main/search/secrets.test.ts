import { describe, expect, it } from 'vitest';
import { REDACTED, redact } from './secrets.ts';

describe('redact', () => {
  it.each([
    ['export OPENAI_API_KEY=sk-proj-abcDEF1234567890ghijKLMN', 'sk-proj'],
    ['key sk-ant-api03-AAAAbbbbCCCCdddd1234 in the log', 'sk-ant'],
    ['git clone https://ghp_0123456789abcdefghijABCDEFGHIJ@github.com/x/y', 'ghp_'],
    ['token github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'github_pat_'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'AKIA'],
    ['slack xoxb-123456789012-abcdefABCDEF', 'xoxb'],
    ['curl -H "Authorization: Bearer Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA="', 'Zm9v'],
    ['password=Tr0ub4dor&3xyzQ9!kLmN', 'Tr0ub4dor'],
    ['api_key: "d41d8cd98f00b204e9800998ecf8427e"', 'd41d8cd9'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'eyJ'],
  ])('takes the secret out of %s', (line, part) => {
    const out = redact(line);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(part);
  });

  it.each([
    'npm test -- --reporter=verbose',
    'cache_key=session_cache_eviction',
    'the task-list is done: 3 passed, 0 failed',
    'commit 8a13e00 moves things down',
    'token=short',
    'https://example.com/?page=2&sort=name',
  ])('keeps ordinary text: %s', (line) => {
    expect(redact(line)).toBe(line);
  });
});
