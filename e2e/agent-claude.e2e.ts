/**
 * The real Claude Code (2.1.328, pinned in package.json) in a pane, against the scripted
 * model server (Anthropic Messages with SSE, through ANTHROPIC_BASE_URL and a fake key),
 * with the agent channel installed by `terminal-delight hooks --agent claude` into the
 * test's own HOME. First-run screens are skipped through ~/.claude.json; permission
 * prompts are on (permissions.defaultMode "default"). The window is the real serve
 * shell in Chromium: a reply with a td block becomes a card; a question and a permission
 * prompt answered on the bench reach the agent (asserted on the next request the model
 * server receives); a permission answered in Claude Code's own prompt retires its card;
 * the header goes working → needs you → done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeRig, card, headerStatus, newAgentPane, prompt, reportFailures, shot, shotLight, tdReplyCard, type AgentRig } from './agent-cli.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;

const lastUserContent = (body: Record<string, unknown>) => {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const content = messages.at(-1)!.content;
  return Array.isArray(content) ? content as Array<Record<string, unknown>> : [{ type: 'text', text: content }];
};

beforeAll(async () => {
  rig = await claudeRig();
  ({ paneId, folder } = await newAgentPane(rig, 'claude'));
  await rig.win.waitForText(paneId, /for shortcuts|❯/, 90_000);
}, 180_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await rig?.close();
});

describe('Claude Code, for real', () => {
  it('a reply with a td block becomes a card; the status goes working, then done', async () => {
    const { win } = rig;
    await tdReplyCard(rig, paneId, 'claude-e2e-reply', () => prompt(win, paneId, 'run the tests'));
    expect((await win.pane(paneId))!.agentCli).toMatchObject({ name: 'claude', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('a permission prompt denied on the bench reaches Claude Code as an error tool result, and the turn goes on', async () => {
    const { win, model } = rig;
    const n = model.main().length;
    model.script(
      { tool: 'Bash', input: { command: 'rm -rf build', description: 'Remove the build folder' } },
      { text: 'Understood, I left the build folder alone.' },
    );
    await prompt(win, paneId, 'clean up');
    const perm = await card(win, paneId, { prefix: 'permission-' }, 'the permission card');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    expect(await perm.locator.innerText()).toContain('Allow Bash: rm -rf build?');
    // Each option's Choose at its right, on its name's line or under it (the narrow bench puts allow's under "allow recommended").
    const gaps = await perm.locator.locator('.tdb-option').evaluateAll((els) => els.map((o) => o.getBoundingClientRect().right - o.querySelector('.tdb-option-head button')!.getBoundingClientRect().right));
    expect(gaps.length).toBe(2);
    for (const gap of gaps) expect(gap).toBeLessThan(12);
    await shot(perm.locator, 'claude-permission-waiting-dark');
    await perm.locator.getByRole('textbox').first().fill('Keep the build folder.');
    await perm.locator.getByRole('button', { name: /^Reject/ }).click();
    const next = await model.mainRequest(n + 1, 60_000, 'the request after the deny');
    const result = lastUserContent(next.body).find((c) => c.type === 'tool_result')!;
    expect(result).toMatchObject({ is_error: true });
    expect(JSON.stringify(result.content)).toContain('Keep the build folder.');
    await win.waitFor(async () => /answered here: deny/.test(await perm.locator.innerText()), 'the card to say answered here');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
  });

  it('a permission answered in Claude Code\'s own prompt retires its card: no buttons, the hook gone, no longer "needs you"', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const marker = path.join(serve.cwd, 'answered-in-terminal.txt');
    model.script(
      { tool: 'Bash', input: { command: `echo yes > ${marker}`, description: 'Write a marker' } },
      { text: 'Wrote the marker.' },
    );
    await prompt(win, paneId, 'write the marker');
    const seen = new Set<string>();
    for (const id of await win.page.evaluate((pid) => [...document.querySelectorAll(`[data-pane-id="${pid}"] [data-surface-id^="permission-"]`)].map((e) => e.getAttribute('data-surface-id') ?? ''), paneId)) seen.add(id);
    const perm = await card(win, paneId, { prefix: 'permission-', not: seen }, 'the second permission card');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    await win.waitForText(paneId, /Do you want to proceed/, 30_000);
    await win.focusKeyboard(paneId);
    // Claude Code ignores keys for a moment after it shows a permission prompt (a key typed
    // for something else must not answer it): like a person, press again while it still asks.
    const asking = async () => /Do you want to proceed\?/.test((await win.text(paneId)).split('\n').slice(-30).join('\n'));
    for (let tries = 0; tries < 8 && (await asking()); tries++) {
      await win.page.keyboard.press('1');
      await win.waitFor(async () => !(await asking()), 'Claude Code to take the answer', 1_500).catch(() => undefined);
    }
    await win.waitFor(async () => /answered in the terminal/.test(await perm.locator.innerText()), 'the card to say answered in the terminal', 30_000);
    expect(await perm.locator.getByRole('button', { name: /^(Approve|Reject|Choose)/ }).count()).toBe(0);
    const next = await model.mainRequest(n + 1, 60_000, 'the request after the tool ran');
    expect(lastUserContent(next.body).find((c) => c.type === 'tool_result')).toMatchObject({ is_error: false });
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    await win.waitFor(async () => (await headerStatus(win, paneId)) !== 'needs you', 'the header to leave "needs you"', 30_000);
    // the waiting hook was told it is over (it exits within a poll instead of waiting out 540 s)
    const permId = perm.id.slice('permission-'.length);
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'answers', `${permId}.json`), 'utf8'))).toMatchObject({ retired: 'answered_in_terminal' });
    await shot(perm.locator, 'claude-permission-answered-in-terminal-dark');
    await shotLight(rig, paneId, perm.id, 'claude-permission-answered-in-terminal-light');
  });

  it('a question answered on the bench reaches Claude Code as the tool\'s answer', async () => {
    const { win, model } = rig;
    const n = model.main().length;
    model.script(
      { tool: 'AskUserQuestion', input: { questions: [{ question: 'Which colour scheme should the dark theme start from?', header: 'Scheme', multiSelect: false, options: [{ label: 'Nord', description: 'Cool blues' }, { label: 'Solarized', description: 'Warm' }] }] } },
      { text: 'Nord it is.' },
    );
    await prompt(win, paneId, 'ask me about the theme');
    const q = await card(win, paneId, { prefix: 'question-' }, 'the question card');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    await q.locator.getByRole('button', { name: 'Choose Nord' }).click();
    const next = await model.mainRequest(n + 1, 60_000, 'the request after the answer');
    const result = lastUserContent(next.body).find((c) => c.type === 'tool_result')!;
    expect(JSON.stringify(result.content)).toContain('Nord');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
    expect(await win.text(paneId)).not.toContain('[workbench:');
  });
});
