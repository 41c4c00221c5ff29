/**
 * The end-to-end tests leave the person's own folders alone (main/test-home.ts, and each
 * serve's own home: e2e/harness.ts). With HOME and every XDG_* folder in a sentinel that
 * holds what a person has (main/panes/testing.ts, runInSentinelHome), the tests that install
 * the OpenCode plugin with the real installer and run OpenCode, and install Tick packages
 * into a serve's home, pass and leave the sentinel byte for byte as it was.
 */
import { expect, it } from 'vitest';
import { runInSentinelHome } from '../main/panes/testing.ts';

it('the agent and Tick package tests leave HOME and XDG_* as they were', () => {
  const files = ['e2e/agent-opencode.e2e.ts', 'e2e/agents.e2e.ts'];
  const r = runInSentinelHome('e2e', files, 560_000);
  expect(r.status, r.output.slice(-6000)).toBe(0);
  expect(r.output).toMatch(new RegExp(`Test Files\\s+${files.length} passed`));
  expect(r.after).toEqual(r.before);
}, 600_000);
