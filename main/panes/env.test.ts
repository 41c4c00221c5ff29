// A pane's environment (main/panes/env.ts): what it inherits, what it never does, what the app adds.
import { describe, expect, it } from 'vitest';
import { paneEnv } from './env.ts';

const input = { session: 's1', paneId: 'p1', tag: 't1', socket: '/tmp/app.sock' };

describe('paneEnv', () => {
  it('never passes on Electron\'s run-as-Node switch (a saved pane\'s, when it resumes), but gives it where the app asks (a Tick\'s launcher)', () => {
    const saved = { PATH: '/usr/bin', HOME: '/home/x', ELECTRON_RUN_AS_NODE: '1', TMUX: '/tmp/tmux', MALLOC_ARENA_MAX: '4' };
    const env = paneEnv(saved, input);
    expect(env.ELECTRON_RUN_AS_NODE).toBeUndefined();
    expect(env.TMUX).toBeUndefined();
    // A person's own allocator setting is theirs.
    expect(env.MALLOC_ARENA_MAX).toBe('4');
    expect(env).toMatchObject({ HOME: '/home/x', TD_SESSION: 's1', TD_PANE_ID: 'p1', TD_TAG: 't1', TD_SOCKET: '/tmp/app.sock', TERM: 'xterm-256color' });
    expect(paneEnv(saved, { ...input, extra: { ELECTRON_RUN_AS_NODE: '1' } }).ELECTRON_RUN_AS_NODE).toBe('1');
  });
});
