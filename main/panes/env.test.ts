// A pane's environment (main/panes/env.ts): what it inherits, what it never does, what the app adds.
import { describe, expect, it } from 'vitest';
import { appRoot, paneEnv, userPath } from './env.ts';

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

describe('userPath', () => {
  const root = '/home/u/src/terminal-delight';
  const own = `${root}/node_modules/.bin`;
  it('leaves out this app\'s own node_modules/.bin wherever it is, and nothing else, when npm did not run us', () => {
    expect(userPath({ PATH: `${own}:/home/u/.local/bin:/home/u/other/node_modules/.bin:/usr/bin` }, root)).toEqual(['/home/u/.local/bin', '/home/u/other/node_modules/.bin', '/usr/bin']);
    expect(userPath({ PATH: `/usr/bin:${own}/:/bin` }, root)).toEqual(['/usr/bin', '/bin']);
    expect(userPath({}, root)).toEqual(['/usr/local/bin', '/usr/bin', '/bin']);
  });
  it('run by npm, leaves out the node_modules/.bin and node-gyp-bin entries npm put first, and keeps the person\'s later ones', () => {
    const npm = { npm_lifecycle_event: 'start', PATH: `/p/node_modules/.bin:/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/home/u/bin:/home/u/tools/node_modules/.bin:/usr/bin` };
    expect(userPath(npm, root)).toEqual(['/home/u/bin', '/home/u/tools/node_modules/.bin', '/usr/bin']);
    expect(userPath({ ...npm, npm_lifecycle_event: undefined, npm_config_cache: '/c' }, root)).toEqual(['/home/u/bin', '/home/u/tools/node_modules/.bin', '/usr/bin']);
    expect(userPath({ ...npm, npm_lifecycle_event: undefined }, root)).toHaveLength(6);
  });
  it('is the PATH a pane gets, after the app\'s bin/', () => {
    const env = paneEnv({ PATH: `${appRoot}/node_modules/.bin:/usr/bin` }, input);
    expect(env.PATH!.split(':').slice(1)).toEqual(['/usr/bin']);
  });
});
