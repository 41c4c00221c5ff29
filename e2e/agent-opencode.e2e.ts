/**
 * The real OpenCode (1.18.33, pinned in package.json) in a pane of the real window,
 * against the scripted model server (OpenAI Chat Completions through an
 * `@ai-sdk/openai-compatible` provider in ~/.config/opencode/opencode.json, which
 * OpenCode bundles, and a fake key). The agent channel is OpenCode's plugin, written by
 * `terminal-delight hooks --agent opencode`.
 *
 * OpenCode installs `@opencode-ai/plugin` into its config folder the first time it
 * starts (an npm install from the registry); the test's HOME is one where that has
 * happened (the folder's package.json and lock name it), so nothing is downloaded here.
 *
 * A reply with a td block becomes a card; a permission denied on the bench reaches the
 * model as the rejection with the comment, and one allowed runs the command (asserted on
 * the next request the model server receives); a permission answered in OpenCode's own
 * prompt while the bench waits retires the card and ends the waiting hook; the header
 * goes working → needs you → done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, opencodeRig, headerStatus, inOrder, newAgentPane, prompt, reportFailures, shot, shotLight, statusLog, tdReplyCard, type AgentRig } from './agent-cli.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;
let statuses: () => Promise<string[]>;

/** The tool results the request hands back to the model. */
const toolMessages = (body: Record<string, unknown>) => (body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'tool');

async function permissionIds(): Promise<Set<string>> {
  return new Set(await rig.win.page.evaluate((pid) => [...document.querySelectorAll(`[data-pane-id="${pid}"] [data-surface-id^="permission-"]`)].map((e) => e.getAttribute('data-surface-id') ?? ''), paneId));
}

beforeAll(async () => {
  rig = await opencodeRig();
  ({ paneId, folder } = await newAgentPane(rig, 'opencode'));
  statuses = await statusLog(rig.win, paneId);
  await rig.win.waitForText(paneId, /Ask anything/, 180_000);
}, 300_000);

reportFailures(() => ({ rig, paneId, folder, statuses }));

afterAll(async () => {
  await rig?.close();
});

describe('OpenCode, for real', () => {
  it('a reply with a td block becomes a card; the status goes working, then done; the session is the pane\'s', async () => {
    const { win } = rig;
    await tdReplyCard(rig, paneId, 'opencode-e2e-reply', () => prompt(win, paneId, 'run the tests'), 120_000);
    expect(inOrder(await statuses(), ['working', 'done'])).toBe(true);
    expect((await win.pane(paneId))!.agentCli).toMatchObject({ name: 'opencode', sessionId: expect.stringMatching(/^ses_/) });
  });

  it('a permission denied on the bench reaches OpenCode as the rejection with the comment, and the turn goes on', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const seen = await permissionIds();
    model.script({ tool: 'bash', input: { command: 'rm -rf build', description: 'Remove the build folder' } }, { text: 'Understood, I left the build folder alone.' });
    fs.mkdirSync(path.join(serve.cwd, 'build'));
    await prompt(win, paneId, 'clean up');
    const perm = await card(win, paneId, { prefix: 'permission-', not: seen }, 'the permission card', 120_000);
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    expect(await perm.locator.innerText()).toContain('Allow bash: rm -rf build?');
    await shot(perm.locator, 'opencode-permission-waiting-dark');
    await perm.locator.getByRole('textbox').first().fill('Keep the build folder.');
    await perm.locator.getByRole('button', { name: /^Reject/ }).click();
    const next = await model.mainRequest(n + 1, 120_000, 'the request after the deny');
    expect(String(toolMessages(next.body).at(-1)!.content)).toMatch(/rejected permission.*Keep the build folder\./);
    expect(fs.existsSync(path.join(serve.cwd, 'build'))).toBe(true);
    await win.waitFor(async () => /answered here: deny/.test(await perm.locator.innerText()), 'the card to say answered here');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
    expect(inOrder(await statuses(), ['working', 'blocked', 'working', 'done'])).toBe(true);
  });

  it('a permission allowed on the bench runs the command, and its output reaches the model', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const seen = await permissionIds();
    const marker = path.join(fs.realpathSync(serve.cwd), 'allowed-on-bench.txt');
    model.script({ tool: 'bash', input: { command: `echo yes > ${marker}`, description: 'Write a marker' } }, { text: 'Wrote the marker.' });
    await prompt(win, paneId, 'write the marker');
    const perm = await card(win, paneId, { prefix: 'permission-', not: seen }, 'the permission card', 120_000);
    await perm.locator.getByRole('button', { name: /^Approve/ }).click();
    await model.mainRequest(n + 1, 120_000, 'the request after the allow');
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    await win.waitFor(async () => /answered here: allow/.test(await perm.locator.innerText()), 'the card to say answered here: allow');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
  });

  it('a permission answered in OpenCode\'s own prompt while the bench waits: the card says so, the hook ends, the status leaves "needs you"', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const seen = await permissionIds();
    const marker = path.join(fs.realpathSync(serve.cwd), 'answered-in-terminal.txt');
    model.script({ tool: 'bash', input: { command: `echo yes > ${marker}`, description: 'Write the terminal marker' } }, { text: 'Wrote it.' });
    await prompt(win, paneId, 'write the terminal marker');
    const perm = await card(win, paneId, { prefix: 'permission-', not: seen }, 'the permission card', 120_000);
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    await win.waitForText(paneId, /Permission required/, 60_000);
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Enter');
    await win.waitFor(async () => /answered in the terminal/.test(await perm.locator.innerText()), 'the card to say answered in the terminal', 60_000);
    expect(await perm.locator.getByRole('button', { name: /^(Approve|Reject|Choose)/ }).count()).toBe(0);
    expect(await perm.locator.innerText()).toContain("Answered in OpenCode's terminal.");
    await model.mainRequest(n + 1, 120_000, 'the request after the terminal answer');
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    const permId = perm.id.slice('permission-'.length);
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'answers', `${permId}.json`), 'utf8'))).toMatchObject({ retired: 'answered_in_terminal' });
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
    await shot(perm.locator, 'opencode-permission-answered-in-terminal-dark');
    await shotLight(rig, paneId, perm.id, 'opencode-permission-answered-in-terminal-light');
  });
});
