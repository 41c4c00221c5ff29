/**
 * A permission from the real Claude Code (against the scripted model server, hooks installed
 * as in agent-claude.e2e.ts), approved from a phone (Chromium as an iPhone 13 over HTTPS on
 * the device door): the tool runs, the model server gets its result, the card leaves the
 * phone and the desktop's bench says it was answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, claudeRig, headerStatus, newAgentPane, prompt, reportFailures, type AgentRig } from './agent-cli.ts';
import { pairedPhone, type Phone } from './phone.ts';

let rig: AgentRig;
let ph: Phone;
let paneId: string;
let folder: string;

beforeAll(async () => {
  rig = await claudeRig();
  ({ paneId, folder } = await newAgentPane(rig, 'claude'));
  await rig.win.waitForText(paneId, /for shortcuts|❯/, 90_000);
  ph = await pairedPhone(rig.browser, rig.serve);
}, 240_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await ph?.close();
  await rig?.close();
});

describe('a real agent\'s permission, from the phone', () => {
  it('Claude Code asks to run Bash; Approve on the phone runs it', async () => {
    const { win, model, serve } = rig;
    const n = model.main().length;
    const marker = path.join(serve.cwd, 'approved-from-phone.txt');
    model.script(
      { tool: 'Bash', input: { command: `echo phone > ${marker}`, description: 'Write a marker' } },
      { text: 'Wrote the marker.' },
    );
    await prompt(win, paneId, 'write the marker');
    const perm = await card(win, paneId, { prefix: 'permission-' }, 'the permission card on the desktop');
    const phoneCard = ph.page.locator('.phone-card.kind-permission');
    await phoneCard.waitFor({ timeout: 30_000 });
    expect(await phoneCard.locator('h2').textContent()).toBe('Permission: Bash');
    expect(await phoneCard.locator('.phone-text').textContent()).toBe(`Allow Bash: echo phone > ${marker}?`);
    expect(await phoneCard.locator('.phone-meta').textContent()).toMatch(/^claude · /);
    await ph.shot('phone-permission-dark');
    await phoneCard.getByRole('button', { name: 'Approve' }).tap();
    const next = await model.mainRequest(n + 1, 60_000, 'the request after the tool ran');
    const messages = next.body.messages as Array<{ content: unknown }>;
    const content = messages.at(-1)!.content as Array<Record<string, unknown>>;
    expect(content.find((c) => c.type === 'tool_result')).toMatchObject({ is_error: false });
    expect(fs.readFileSync(marker, 'utf8')).toBe('phone\n');
    await expect.poll(() => phoneCard.count(), { timeout: 20_000 }).toBe(0);
    await win.waitFor(async () => /answered here: allow/.test(await perm.locator.innerText()), 'the desktop\'s card to say answered here');
    const record = fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).at(-1);
    expect(record).toMatchObject({ surface: perm.id, action: 'choose', target: 'allow' });
    await win.waitFor(async () => (await headerStatus(win, paneId)) !== 'needs you', 'the header to leave "needs you"', 30_000);
  }, 180_000);
});
