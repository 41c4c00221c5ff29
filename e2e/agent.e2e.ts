/**
 * The agent channel end to end: the real serve shell, the built renderer in Chromium,
 * and the real Claude Code hook (scripts/hooks/tdac-hook.sh) run as Claude Code runs it,
 * with a documented hook payload on stdin. A question becomes a card on the pane's
 * bench; choosing an option there writes the answer the waiting hook hands back, and
 * nothing is typed into the terminal. The pane header shows the agent blocked.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents, sampleInput, startHook } from '../scripts/hooks/hook-runner.ts';
import { ARTIFACTS, openPaneFixture, waitForBenchFile, type PaneFixture, type Serve, type TdPage } from './harness.ts';

let fixture: PaneFixture;
let serve: Serve;
let browser: Browser;
let win: TdPage;
let paneId: string;
let folder: string;
let session: string;

function bench(): Locator {
  return win.page.locator(`[data-pane-id="${paneId}"] .td-bench`);
}
function card(id: string): Locator {
  return bench().locator(`[data-surface-id="${id}"]`);
}

beforeAll(async () => {
  fixture = await openPaneFixture();
  ({ serve, browser, win, paneId, folder } = fixture);
  session = path.basename(path.dirname(folder));
  if ((await bench().count()) === 0) await win.header(paneId).getByRole('button', { name: 'Open bench' }).click();
  await bench().waitFor({ state: 'visible', timeout: 20_000 });
  await waitForBenchFile(win, folder);
});

afterAll(async () => {
  await fixture?.close();
});

describe('agent channel in the window', () => {
  it('a question becomes a card; choosing an option answers the waiting hook', async () => {
    const env = {
      PATH: process.env.PATH, HOME: serve.home, XDG_STATE_HOME: serve.stateDir,
      TD_SESSION: session, TD_PANE_ID: paneId, TD_QUESTION_WAIT_S: '90', TD_QUESTION_POLL_MS: '100',
    };
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    const cardId = 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB';
    await card(cardId).waitFor({ state: 'visible', timeout: 30_000 });
    expect(await card(cardId).innerText()).toContain('Which colour scheme should the dark theme start from?');
    await win.waitFor(async () => (await win.pane(paneId))?.agent?.status === 'blocked', 'the pane to show the agent blocked');
    await win.waitFor(async () => (await win.header(paneId).locator('.badge.agent').innerText()) === 'needs you', 'the header badge to say "needs you"');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await card(cardId).screenshot({ path: path.join(ARTIFACTS, 'agent-question-card.png') });
    // still waiting for the person
    expect(run.child.exitCode).toBe(null);

    await card(cardId).getByRole('button', { name: 'Choose Nord' }).click();
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { answers: { 'Which colour scheme should the dark theme start from?': 'Nord' } },
      },
    });
    expect(readEvents(folder).at(-1)).toMatchObject({ type: 'answer', of: 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB' });
    await win.waitFor(async () => (await win.pane(paneId))?.agent?.status === 'working', 'the agent working again');
    expect(await win.text(paneId)).not.toContain('[workbench:');
  });

  it('a permission prompt becomes a decision; rejecting with a comment denies it', async () => {
    const env = {
      PATH: process.env.PATH, HOME: serve.home, XDG_STATE_HOME: serve.stateDir,
      TD_SESSION: session, TD_PANE_ID: paneId, TD_QUESTION_WAIT_S: '90', TD_QUESTION_POLL_MS: '100',
    };
    const run = startHook(sampleInput('permission-request-bash.json'), env);
    await win.waitFor(() => readEvents(folder).some((e) => e.type === 'permission'), 'the permission event');
    const id = readEvents(folder).filter((e) => e.type === 'permission').at(-1)!.id as string;
    const decision = card(`permission-${id}`);
    await win.waitFor(async () => {
      if ((await decision.count()) > 0) return true;
      // the decision lands on the Decide shelf; bring it on screen if another is showing
      const shelf = bench().locator('[data-shelf="Decide"]');
      if ((await shelf.count()) > 0) await shelf.click();
      return false;
    }, 'the decision card', 30_000);
    expect(await decision.innerText()).toContain('Allow Bash: rm -rf build?');
    await decision.getByRole('textbox').first().fill('Keep the build folder.');
    await decision.getByRole('button', { name: /^Reject/ }).click();
    const r = await run.done;
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'Keep the build folder.' } },
    });
    expect(await win.text(paneId)).not.toContain('[workbench:');
  });
});
