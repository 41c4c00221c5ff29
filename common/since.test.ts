import { describe, expect, it } from 'vitest';
import { sinceTime } from './since.ts';

describe('sinceTime', () => {
  it('takes a date alone as its local midnight, a time as Date.parse reads it', () => {
    expect(sinceTime('2026-12-01')).toBe(new Date(2026, 11, 1).getTime());
    expect(sinceTime(' 2026-12-01 ')).toBe(new Date(2026, 11, 1).getTime());
    expect(sinceTime('2026-12-01T09:30')).toBe(new Date(2026, 11, 1, 9, 30).getTime());
    expect(sinceTime('2026-12-01T09:30:00Z')).toBe(Date.UTC(2026, 11, 1, 9, 30));
  });
  it('is the day\'s start where the person is, in any zone', () => {
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Kiritimati';
      expect(sinceTime('2026-12-02')).toBe(Date.UTC(2026, 11, 1, 10));
      process.env.TZ = 'America/Los_Angeles';
      expect(sinceTime('2026-12-01')).toBe(Date.UTC(2026, 11, 1, 8));
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });
  it('is NaN for what is not a date', () => {
    expect(sinceTime('yesterday-ish')).toBeNaN();
    expect(sinceTime('2026-02-31')).toBeNaN();
    expect(sinceTime('')).toBeNaN();
  });
});
