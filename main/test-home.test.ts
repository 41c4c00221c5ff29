/**
 * The tests leave the person's own folders alone (main/test-home.ts). A sentinel home, with
 * every XDG_* folder and the agents' config variables inside it, holds what a person has
 * (a Tick installed by the README's `tick install counter`, a mimeapps.list, an OpenCode
 * config); then the suite's tests that install Ticks and Skills, agents' hooks and the
 * OpenCode plugin, and run the real Claude Code (which registers its URL handler in
 * mimeapps.list) run with that environment, and must pass with the sentinel unchanged,
 * byte for byte. e2e/test-home.e2e.ts does the same for the end-to-end tests.
 */
import { expect, it } from 'vitest';
import { runInSentinelHome } from './panes/testing.ts';

it('the tests that install Ticks, hooks and plugins and run agent CLIs leave HOME and XDG_* as they were, and pass when the person has installed counter', () => {
  const files = [
    'main/tick/cli.test.ts', // `tick check counter` must find the sample, not the person's copy
    'main/tick-packages/cli.test.ts', // tick install / list / uninstall
    'main/tick-packages/claude.test.ts', // the real Claude Code, which registers claude-cli in mimeapps.list
    'main/agent-channel/cli.test.ts', // hooks for every agent, the OpenCode plugin
    'scripts/install-agent-hooks.test.ts',
  ];
  const r = runInSentinelHome('unit', files, 400_000);
  expect(r.status, r.output.slice(-6000)).toBe(0);
  expect(r.output).toMatch(new RegExp(`Test Files\\s+${files.length} passed`));
  expect(r.after).toEqual(r.before);
}, 450_000);
