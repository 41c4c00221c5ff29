/**
 * The real Codex (0.171.0, pinned in package.json) in a pane of the real window, against
 * the scripted model server (the OpenAI Responses API through a `model_provider` in
 * ~/.codex/config.toml and a fake key). Codex waits for the terminal to answer its colour
 * queries before it starts, which the window's xterm does. The agent channel is installed
 * by `terminal-delight hooks --agent codex`, and Codex asks to trust those hooks on its
 * first start, as it asks a person: the test trusts them in Codex's own screen.
 * Permission prompts are on (`approval_policy = "on-request"`, a read-only sandbox, and the
 * model asks for `require_escalated`).
 *
 * A reply with a td block becomes a card; a permission denied on the bench reaches the
 * model as the rejection with the comment, and one allowed runs the command (asserted on
 * the next request the model server receives); Esc while the bench waits (Codex kills its
 * hook) says cancelled; with the bench closed Codex asks in its own prompt, and "y" there
 * retires the card; the header goes working → needs you → done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bench, BIN, card, codexRig, trustCodexHooks, headerStatus, inOrder, newAgentPane, prompt, reportFailures, shot, shotLight, statusLog, tdReplyCard, type AgentRig } from './agent-cli.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;
let statuses: () => Promise<string[]>;

/** The function call outputs the request carries back to the model (what became of each tool call). */
const outputs = (body: Record<string, unknown>) => (body.input as Array<Record<string, unknown>>).filter((i) => i.type === 'function_call_output');

const escalated = (cmd: string, why: string) => ({ tool: 'exec_command', input: { cmd, sandbox_permissions: 'require_escalated', justification: why } });

async function newPermissionCard(seenBefore: Set<string>, what: string) {
  return card(rig.win, paneId, { prefix: 'permission-', not: seenBefore }, what);
}

async function permissionIds(): Promise<Set<string>> {
  return new Set(await rig.win.page.evaluate((pid) => [...document.querySelectorAll(`[data-pane-id="${pid}"] [data-surface-id^="permission-"]`)].map((e) => e.getAttribute('data-surface-id') ?? ''), paneId));
}

beforeAll(async () => {
  rig = await codexRig();
  ({ paneId, folder } = await newAgentPane(rig, 'codex'));
  statuses = await statusLog(rig.win, paneId);
  // First start after the installer: Codex asks to trust the new hooks, as it asks a person.
  await rig.win.waitForText(paneId, /Hooks need review/, 120_000);
  await shot(rig.win.page.locator(`[data-pane-id="${paneId}"] .xterm-screen`), 'codex-hooks-review-dark');
  await trustCodexHooks(rig, paneId);
  expect(fs.readFileSync(path.join(rig.serve.home, '.codex', 'config.toml'), 'utf8')).toMatch(/trusted_hash = "sha256:/);
}, 240_000);

reportFailures(() => ({ rig, paneId, folder, statuses }));

afterAll(async () => {
  await rig?.close();
});

describe('Codex, for real', () => {
  it('a reply with a td block becomes a card; the status goes working, then done; the session is the pane\'s', async () => {
    const { win } = rig;
    await tdReplyCard(rig, paneId, 'codex-e2e-reply', () => prompt(win, paneId, 'run the tests'));
    expect(inOrder(await statuses(), ['working', 'done'])).toBe(true);
    expect((await win.pane(paneId))!.agentCli).toMatchObject({ name: 'codex', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('a permission denied on the bench reaches Codex as the rejection with the comment, and the turn goes on', async () => {
    const { win, model } = rig;
    const n = model.main().length;
    const seen = await permissionIds();
    model.script(escalated('rm -rf build', 'Remove the build folder'), { text: 'Understood, I left the build folder alone.' });
    await prompt(win, paneId, 'clean up');
    const perm = await newPermissionCard(seen, 'the permission card');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    expect(await perm.locator.innerText()).toContain('Allow Bash: rm -rf build?');
    expect(await perm.locator.innerText()).toContain('Codex asks to use');
    await shot(perm.locator, 'codex-permission-waiting-dark');
    await perm.locator.getByRole('textbox').first().fill('Keep the build folder.');
    await perm.locator.getByRole('button', { name: /^Reject/ }).click();
    const next = await model.mainRequest(n + 1, 90_000, 'the request after the deny');
    expect(String(outputs(next.body).at(-1)!.output)).toMatch(/Rejected.*Keep the build folder\./);
    await win.waitFor(async () => /answered here: deny/.test(await perm.locator.innerText()), 'the card to say answered here');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
    expect(inOrder(await statuses(), ['working', 'blocked', 'working', 'done'])).toBe(true);
    expect(fs.existsSync(path.join(rig.serve.cwd, 'build'))).toBe(false);
  });

  it('a permission allowed on the bench runs the command, and its output reaches the model', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const seen = await permissionIds();
    const marker = path.join(fs.realpathSync(serve.cwd), 'allowed-on-bench.txt');
    model.script(escalated(`echo yes > ${marker}`, 'Write a marker'), { text: 'Wrote the marker.' });
    await prompt(win, paneId, 'write the marker');
    const perm = await newPermissionCard(seen, 'the permission card');
    await perm.locator.getByRole('button', { name: /^Approve/ }).click();
    const next = await model.mainRequest(n + 1, 90_000, 'the request after the allow');
    expect(String(outputs(next.body).at(-1)!.output)).toMatch(/exited with code 0/);
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    await win.waitFor(async () => /answered here: allow/.test(await perm.locator.innerText()), 'the card to say answered here: allow');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
  });

  it('Esc in Codex while the bench waits (Codex kills its hook): the card says cancelled, nothing runs, the status leaves "needs you"', async () => {
    const { win, model, serve } = rig;
    const seen = await permissionIds();
    const marker = path.join(fs.realpathSync(serve.cwd), 'never-written.txt');
    model.script(escalated(`echo no > ${marker}`, 'Write another marker'));
    await prompt(win, paneId, 'write another marker');
    const perm = await newPermissionCard(seen, 'the permission card');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    await win.waitForText(paneId, /Running hook/, 30_000);
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Escape');
    await win.waitFor(async () => /cancelled/.test(await perm.locator.innerText()), 'the card to say cancelled', 30_000);
    expect(await perm.locator.getByRole('button', { name: /^(Approve|Reject)/ }).count()).toBe(0);
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'idle', 'the header to say idle', 30_000);
    expect(fs.existsSync(marker)).toBe(false);
    await shot(perm.locator, 'codex-permission-cancelled-dark');
  });

  it('with the bench closed Codex asks in its own prompt; "y" there runs the command and the card says it was answered in the terminal', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const seen = await permissionIds();
    const marker = path.join(fs.realpathSync(serve.cwd), 'answered-in-terminal.txt');
    await win.header(paneId).getByRole('button', { name: 'Close bench' }).click();
    await win.waitFor(() => JSON.parse(fs.readFileSync(path.join(folder, 'bench.json'), 'utf8')).open === false, 'bench.json to say closed');
    model.script(escalated(`echo yes > ${marker}`, 'Write the terminal marker'), { text: 'Wrote it.' });
    await prompt(win, paneId, 'write the terminal marker');
    await win.waitForText(paneId, /Would you like to run the following command\?/, 60_000);
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'needs you', 'the header to say "needs you"', 30_000);
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('y');
    const next = await model.mainRequest(n + 1, 90_000, 'the request after the terminal answer');
    expect(String(outputs(next.body).at(-1)!.output)).toMatch(/exited with code 0/);
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    await win.header(paneId).getByRole('button', { name: 'Open bench' }).click();
    await bench(win, paneId).waitFor();
    const perm = await newPermissionCard(seen, 'the card of the prompt asked in the terminal');
    await win.waitFor(async () => /answered in the terminal/.test(await perm.locator.innerText()), 'the card to say answered in the terminal', 30_000);
    expect(await perm.locator.innerText()).toContain("Answered in Codex's terminal.");
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
    await shot(perm.locator, 'codex-permission-answered-in-terminal-dark');
    await shotLight(rig, paneId, perm.id, 'codex-permission-answered-in-terminal-light');
  });
});
