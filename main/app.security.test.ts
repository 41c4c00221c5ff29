/**
 * Security of what the app leaves on disk: the state folder (pane folders with
 * transcripts, comments, actions and answers; settings; the session; the MCP socket's
 * folder) is the user's alone (mode 0700), whether it is new or already there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.ts';
import { tempState } from './panes/testing.ts';
import { statePaths } from './paths.ts';

describe('the state folder', () => {
  it('is created with mode 0700, and an existing one is made 0700, so other users cannot read pane folders', async () => {
    for (const existing of [false, true]) {
      const state = tempState('td-appsec-');
      const paths = statePaths(state.env);
      if (existing) {
        fs.mkdirSync(paths.state, { recursive: true });
        fs.chmodSync(paths.state, 0o755);
      }
      const app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
      try {
        const pane = app.panes.create({ cwd: state.dir });
        const folder = app.panes.folder(pane.id);
        expect(folder.startsWith(paths.state + path.sep)).toBe(true);
        expect(fs.statSync(paths.state).mode & 0o777, `existing=${existing}`).toBe(0o700);
      } finally {
        await app.dispose();
        state.cleanup();
      }
    }
  });
});
