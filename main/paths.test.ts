// Where the app keeps its files follows the environment it is given, not the process's.
import path from 'node:path';
import { expect, it } from 'vitest';
import { paneFolder } from './agent-channel/hook.ts';
import { statePaths } from './paths.ts';

it('the state folder is $XDG_STATE_HOME/terminal-delight, else under the given HOME, never the process\'s home', () => {
  expect(statePaths({ HOME: '/home/someone', XDG_STATE_HOME: '/xdg/state' }).state).toBe(path.join('/xdg/state', 'terminal-delight'));
  expect(statePaths({ HOME: '/home/someone' }).sessionFile).toBe(path.join('/home/someone', '.local', 'state', 'terminal-delight', 'session.json'));
  expect(statePaths({ HOME: '/home/someone', XDG_STATE_HOME: 'relative' }).state).toBe(path.join('/home/someone', '.local', 'state', 'terminal-delight'));
  expect(paneFolder({ HOME: '/home/someone', TD_SESSION: 's1', TD_PANE_ID: 'p1' })).toBe(path.join('/home/someone', '.local', 'state', 'terminal-delight', 'surfaces', 's1', 'p1'));
});
