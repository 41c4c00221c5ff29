import { describe, expect, it } from 'vitest';
import type { PaneInfo } from '../../preload/contract.ts';
import { argvText, compareVersions, endedLine, endedSummary } from './ended.ts';

const pane = (id: string, ended?: PaneInfo['ended']): PaneInfo => ({ id, tag: 'abcd1234', kind: 'shell', title: id, cwd: '/', command: ['bash'], status: ended ? 'exited' : 'running', cols: 80, rows: 24, benchOpen: false, unseen: 0, ...(ended ? { ended } : {}) });

describe('ended panes in words', () => {
  it('says when and why, one sentence', () => {
    const now = new Date('2026-11-30T15:00:00');
    expect(endedLine({ reason: 'the machine restarted', at: new Date('2026-11-30T14:02:00').toISOString(), resumeArgv: [] }, now)).toMatch(/^Ended at \d\d?:\d\d( [AP]M)?: the machine restarted\.$/);
    expect(endedLine({ reason: 'the service was stopped.', at: 'not a date', resumeArgv: [] }, now)).toBe('Ended: the service was stopped.');
  });

  it('quotes an argv as a person would type it', () => {
    expect(argvText(['claude', '--resume', 'a1-b2', '--model', 'opus'])).toBe('claude --resume a1-b2 --model opus');
    expect(argvText(['bash', '-c', "echo 'hi there'"])).toBe(`bash -c 'echo '\\''hi there'\\'''`);
  });

  it('counts ended panes and names the most common reason', () => {
    expect(endedSummary([pane('a')])).toBeUndefined();
    const r = endedSummary([
      pane('a', { reason: 'the machine restarted', at: '', resumeArgv: [] }),
      pane('b', { reason: 'the machine restarted', at: '', resumeArgv: [] }),
      pane('c', { reason: 'it had exited (status 1) before the service stopped', at: '', resumeArgv: [] }),
      pane('d'),
    ]);
    expect(r).toEqual({ count: 3, reason: 'the machine restarted' });
  });
});

describe('versions', () => {
  it('orders by numbers, not text', () => {
    expect(compareVersions('0.10.0', '0.9.9')).toBeGreaterThan(0);
    expect(compareVersions('0.1.0', '0.2.0')).toBeLessThan(0);
    expect(compareVersions('1.0', '1.0.0')).toBe(0);
  });
});
