/**
 * The real Gemini CLI (0.61.0, pinned in package.json) in a pane of the real window,
 * against the scripted model server (Gemini's streamGenerateContent through
 * GOOGLE_GEMINI_BASE_URL and a fake API key). First-run screens are skipped as a person's
 * settings would: the API key chosen in ~/.gemini/settings.json (with a model, so no
 * routing request), and the folder trusted in ~/.gemini/trustedFolders.json. The agent
 * channel is installed by `terminal-delight hooks --agent gemini`.
 *
 * Gemini CLI's hooks cannot answer its permission prompts (docs/spec/agents/gemini.md): a
 * reply with a td block becomes a card; a permission prompt becomes a card that says to
 * answer in the terminal and offers no buttons; answered there, the tool runs (its output
 * reaches the model, asserted on the next request) and the card says so; the header goes
 * working → needs you → done; the pane's session is the one the app chose.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, geminiPrompt, geminiReady, geminiRig, headerStatus, inOrder, newAgentPane, reportFailures, shot, shotLight, statusLog, tdReplyCard, type AgentRig } from './agent-cli.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;
let statuses: () => Promise<string[]>;

const prompt = geminiPrompt;

/** What the request hands back to the model for each function call. */
const responses = (body: Record<string, unknown>) => (body.contents as Array<{ parts: Array<Record<string, unknown>> }>).flatMap((c) => c.parts).filter((p) => 'functionResponse' in p);

beforeAll(async () => {
  rig = await geminiRig();
  ({ paneId, folder } = await newAgentPane(rig, 'gemini'));
  statuses = await statusLog(rig.win, paneId);
  await geminiReady(rig, paneId, folder);
}, 240_000);

reportFailures(() => ({ rig, paneId, folder, statuses }));

afterAll(async () => {
  await rig?.close();
});

describe('Gemini CLI, for real', () => {
  it('a reply with a td block becomes a card; the status goes working, then done; the session is the one the app chose', async () => {
    const { win } = rig;
    const pane = (await win.pane(paneId))!;
    expect(pane.agentCli).toMatchObject({ name: 'gemini', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(pane.command.slice(0, 3)).toEqual(['gemini', '--session-id', pane.agentCli!.sessionId]);
    await tdReplyCard(rig, paneId, 'gemini-e2e-reply', () => prompt(win, paneId, 'run the tests'));
    expect(inOrder(await statuses(), ['working', 'done'])).toBe(true);
    // the session Gemini CLI reports is the one it was started with
    expect(fs.readFileSync(path.join(folder, 'inbound.jsonl'), 'utf8')).toContain(`"session_id":"${pane.agentCli!.sessionId}"`);
  });

  it('a permission prompt: the card says to answer in the terminal (no buttons); answered there, the tool runs and the card says so', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const marker = path.join(fs.realpathSync(serve.cwd), 'answered-in-terminal.txt');
    model.script({ tool: 'run_shell_command', input: { command: `echo yes > ${marker}`, description: 'Write a marker' } }, { text: 'Wrote the marker.' });
    await prompt(win, paneId, 'write the marker');
    const perm = await card(win, paneId, { prefix: 'permission-' }, 'the permission card', 90_000);
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    const text = await perm.locator.innerText();
    expect(text).toContain(`Allow Shell: echo yes > ${marker}?`);
    expect(text).toContain("Gemini CLI's hooks cannot answer its permission prompts: answer in its terminal.");
    expect(await perm.locator.getByRole('button', { name: /^(Approve|Reject|Choose)/ }).count()).toBe(0);
    await shot(perm.locator, 'gemini-permission-waiting-dark');
    await win.waitForText(paneId, /Allow once/, 30_000);
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Enter');
    const next = await model.mainRequest(n + 1, 90_000, 'the request after the terminal answer');
    expect(JSON.stringify(responses(next.body).at(-1))).toContain('run_shell_command');
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    await win.waitFor(async () => /answered in the terminal/.test(await perm.locator.innerText()), 'the card to say answered in the terminal', 30_000);
    expect(await perm.locator.innerText()).toContain("Answered in Gemini CLI's terminal.");
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
    expect(inOrder(await statuses(), ['working', 'blocked', 'working', 'done'])).toBe(true);
    await shot(perm.locator, 'gemini-permission-answered-in-terminal-dark');
    await shotLight(rig, paneId, perm.id, 'gemini-permission-answered-in-terminal-light');
  });

  it('Esc in its prompt runs no hook: the card waits until the next prompt, which retires it', async () => {
    const { win, model, serve } = rig;
    const seen = new Set(await win.page.evaluate((pid) => [...document.querySelectorAll(`[data-pane-id="${pid}"] [data-surface-id^="permission-"]`)].map((e) => e.getAttribute('data-surface-id') ?? ''), paneId));
    const marker = path.join(fs.realpathSync(serve.cwd), 'never-written.txt');
    model.script({ tool: 'run_shell_command', input: { command: `echo no > ${marker}`, description: 'Write another marker' } });
    await prompt(win, paneId, 'write another marker');
    const perm = await card(win, paneId, { prefix: 'permission-', not: seen }, 'the permission card', 90_000);
    await win.waitForText(paneId, /Allow once/, 30_000);
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Escape');
    await win.waitForText(paneId, /Request cancelled/, 30_000);
    expect(fs.existsSync(marker)).toBe(false);
    expect(await headerStatus(win, paneId)).toBe('needs you');
    model.script({ text: 'Fine, nothing written.' });
    await prompt(win, paneId, 'never mind');
    await win.waitFor(async () => /no longer asked/.test(await perm.locator.innerText()), 'the next prompt to retire the card', 60_000);
    expect(await perm.locator.innerText()).toContain('Gemini CLI moved on before this was answered.');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
  });
});
