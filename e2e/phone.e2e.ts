/**
 * The phone (issue 34): Chromium as an iPhone 13 (390×844, touch) over HTTPS on a loopback
 * address, against the device door of a real service that a desktop window shares. It
 * pairs with the QR code's URL, sees the inbox across three panes, answers a card (the line
 * typed into the pane, the actions.jsonl record), sees a card answered on the desktop
 * vanish, shows the agents, and is shut out by revoke. Screenshots of the inbox and the
 * agents, light and dark, go to e2e/artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceConnection } from '../main/service/client.ts';
import { axeViolations, dropSurface, openPaneFixture, paneFolder, type PaneFixture } from './harness.ts';
import { pairedPhone, type Phone } from './phone.ts';

let fx: PaneFixture;
let ph: Phone;
let conn: ServiceConnection;
let phone: Page;
const panes: Array<{ id: string; folder: string; out: string }> = [];

beforeAll(async () => {
  fx = await openPaneFixture({ theme: 'dark', viewport: { width: 1400, height: 900 } });
  ph = await pairedPhone(fx.browser, fx.serve);
  ({ conn, page: phone } = ph);
  // Three panes where a program (as an agent is) reads the lines typed back; the third is an agent's.
  for (let i = 1; i <= 3; i++) {
    const out = path.join(fx.serve.cwd, `typed-${i}.txt`);
    // Started through env, as an agent's wrapper starts it: a pane whose own command is a shell, in the foreground, is at its prompt, and the bench refuses to type there.
    // The agent's pane titles itself with its folder, as many a shell's prompt does.
    const script = i === 3 ? `printf '\\033]0;%s\\007' "$PWD"; printf 'Reading the repository\\n\\033[31mPlanning the change to main.ts\\033[0m\\n'; exec cat > ${out}` : `exec cat > ${out}`;
    const p = await conn.request('pane.create', { command: ['/usr/bin/env', 'bash', '-c', script], cwd: fx.serve.cwd, ...(i === 3 ? { kind: 'agent' as const } : {}) });
    panes.push({ id: p.id, folder: await paneFolder(fx.win, fx.serve, p.id), out });
  }
}, 120_000);

afterAll(async () => {
  await ph?.close();
  await fx?.close();
});

describe('the phone', () => {
  it('pairs with the QR code\'s URL, answers a card of its inbox across three panes, and sees a desktop answer vanish', async () => {
    expect(phone.viewportSize()).toEqual({ width: 390, height: 664 });
    // Paired from the QR code's URL: the secret left the address bar once read.
    expect(new URL(phone.url()).pathname).toBe('/');
    await phone.getByText('Nothing waits for you').waitFor();
    const state = await conn.request('devices.state', {});
    expect(state.devices).toEqual([expect.objectContaining({ name: 'Ada\'s phone', connected: 1 })]);

    // The agent's pane titled with its folder before its card comes.
    await expect.poll(async () => (await conn.request('pane.list', {})).find((p) => p.id === panes[2]!.id)?.title, { timeout: 10_000 }).toBe(fx.serve.cwd);
    // One at a time, each seen on the phone before the next is written: three folders' watchers
    // notice their files in no promised order, and "newest first" is the order the app saw them.
    const cards = phone.locator('.phone-card');
    const drops: Array<[number, { id: string } & Record<string, unknown>]> = [
      [0, { id: 'pick', kind: 'decision', title: 'Which cache?', model: { question: 'LRU or TTL for the session cache?', options: [{ name: 'LRU', recommended: true }, { name: 'TTL' }] } }],
      [1, { id: 'lunch', kind: 'question', title: 'Lunch?', model: { question: 'Tea or coffee with the review?', options: [{ name: 'Tea' }, { name: 'Coffee' }] } }],
      [2, { id: 'diff', kind: 'change', title: 'Retry on 503', model: { summary: 'Retries a request that got 503, three times with backoff.', files: [{ path: 'main.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' }] } }],
    ];
    for (const [n, [pane, doc]] of drops.entries()) {
      dropSurface(panes[pane]!.folder, doc);
      await expect.poll(() => cards.count(), { timeout: 20_000 }).toBe(n + 1);
    }
    // Newest first: the change arrived last.
    expect(await cards.locator('h2').allTextContents()).toEqual(['Retry on 503', 'Lunch?', 'Which cache?']);
    expect(await cards.last().locator('.phone-meta').textContent()).toContain('bash');
    // The folder once: not again after a pane's title that is already its folder (the agent's).
    expect(await cards.first().locator('.phone-meta').textContent()).toBe(`bash · ${fx.serve.cwd}`);
    // (Counted by the folder's own name: a deep one is shortened to its last two names.)
    for (const meta of await cards.locator('.phone-meta').allTextContents()) expect(meta.split(path.basename(fx.serve.cwd)).length - 1, meta).toBe(1);
    await ph.shot('phone-inbox-dark');
    expect(await axeViolations({ page: phone }, 'the phone\'s inbox, dark')).toEqual([]);
    await phone.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await ph.shot('phone-inbox-light');

    // Answered from the phone, with a comment: the same record and line as a click on the desktop.
    const pick = cards.filter({ hasText: 'Which cache?' });
    await pick.getByRole('button', { name: 'Comment…' }).tap();
    await pick.getByLabel('Comment').fill('TTL is\nsimpler');
    await pick.getByRole('button', { name: 'TTL' }).tap();
    await expect.poll(async () => (await cards.count()) === 2 || (await pick.locator('.phone-error').textContent({ timeout: 100 }).catch(() => ''))).toBe(true);
    const record = JSON.parse(fs.readFileSync(path.join(panes[0]!.folder, 'actions.jsonl'), 'utf8').trim()) as Record<string, unknown>;
    expect(record).toMatchObject({ type: 'action', surface: 'pick', action: 'choose', target: 'TTL', comment: 'TTL is\nsimpler' });
    const tag = (await conn.request('app.hello', {})).panes.find((p) => p.id === panes[0]!.id)!.tag;
    await expect.poll(() => fs.existsSync(panes[0]!.out) && fs.readFileSync(panes[0]!.out, 'utf8')).toContain(`[workbench:${tag}] choose on surface pick · TTL — TTL is simpler`);

    // Answered on the desktop (a click on the window's bench): gone from the phone.
    const header = fx.win.header(panes[1]!.id);
    if (await header.getByRole('button', { name: 'Open bench' }).count()) await header.getByRole('button', { name: 'Open bench' }).click();
    await fx.win.page.locator(`[data-pane-id="${panes[1]!.id}"] [data-surface-id="lunch"]`).getByRole('button', { name: 'Choose Coffee' }).click();
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.locator('h2').allTextContents()).toEqual(['Retry on 503']);
    await expect.poll(() => fs.existsSync(panes[1]!.out) && fs.readFileSync(panes[1]!.out, 'utf8')).toContain('choose on surface lunch · Coffee');
  }, 120_000);

  it('shows the agents with their last lines and an agent\'s terminal, read-only and live; revoke shuts the phone out at once', async () => {
    await phone.getByRole('tab', { name: /Agents/ }).tap();
    const agent = phone.locator('.phone-agent');
    await expect.poll(() => agent.count()).toBe(1);
    // (The pane is as narrow as its window made it: its lines wrap.)
    expect((await agent.locator('.phone-lines').textContent())!.replace(/\n/g, '')).toContain('Planning the change to main.ts');
    await ph.shot('phone-agents-light');
    await phone.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await ph.shot('phone-agents-dark');
    expect(await axeViolations({ page: phone }, 'the phone\'s agents, dark')).toEqual([]);

    // What this phone is notified of: its own settings, kept with its record.
    const notifications = phone.getByRole('region', { name: 'Notifications' });
    await notifications.getByLabel('An agent is done').tap();
    await notifications.getByText('Saved.').waitFor();
    await notifications.getByLabel('Quiet hours').tap();
    const record = () => (JSON.parse(fs.readFileSync(path.join(fx.serve.stateDir, 'terminal-delight', 'devices', 'devices.json'), 'utf8')) as { devices: Array<{ notify?: unknown }> }).devices[0]!.notify;
    await expect.poll(record).toEqual({ needsYou: true, done: true, failed: false, quiet: { from: '22:00', to: '07:00' } });
    await ph.shot('phone-agents-settings-dark');

    // Its terminal: the window's xterm, read-only, following the pane's output, colours kept.
    await agent.getByRole('button', { name: 'Terminal' }).tap();
    const screen = phone.locator('.phone-xterm .xterm-rows');
    await expect.poll(async () => ((await screen.textContent({ timeout: 100 }).catch(() => '')) ?? '').replace(/\n/g, '')).toContain('Planning the change to main.ts');
    await conn.request('pane.input', { paneId: panes[2]!.id, data: 'typed at the desk\r' });
    await expect.poll(async () => ((await screen.textContent()) ?? '').replace(/\n/g, '')).toContain('typed at the desk');
    // The red the agent printed is red here; the line typed at the desk is in the terminal's own colour.
    const colourOf = (text: string) => screen.locator('span', { hasText: text }).first().evaluate((el) => getComputedStyle(el).color);
    expect(await colourOf('Planning')).toBe('rgb(240, 114, 122)');
    expect(await colourOf('typed at the desk')).toBe('rgb(213, 216, 222)');
    // A tap on it brings up no keyboard, and keys pressed there reach nothing.
    expect(await phone.locator('.phone-xterm textarea').getAttribute('inputmode')).toBe('none');
    await phone.locator('.phone-xterm').tap();
    await phone.keyboard.type('zz');
    await phone.keyboard.press('Enter');
    // Read-only until the desktop lets this phone type; then a line and the key bar.
    expect(await phone.getByText('Read-only: answer its cards in the Inbox.').count()).toBe(1);
    expect(await conn.request('devices.allowTyping', { name: 'Ada\'s phone', allow: true })).toEqual({ ok: true });
    await phone.getByRole('button', { name: 'Back to the agents' }).tap();
    await agent.getByRole('button', { name: 'Terminal' }).tap();
    await phone.getByRole('switch', { name: 'Type into this terminal' }).tap();
    await phone.getByLabel('Text to type').fill('from the phone');
    await phone.getByRole('button', { name: 'Send' }).tap();
    await phone.getByRole('toolbar', { name: 'Keys' }).getByRole('button', { name: 'Enter' }).tap();
    await expect.poll(() => fs.readFileSync(panes[2]!.out, 'utf8')).toBe('typed at the desk\nfrom the phone\n');
    await expect.poll(async () => ((await screen.textContent()) ?? '').replace(/\n/g, '')).toContain('from the phone');
    await ph.shot('phone-terminal-dark');
    expect(await axeViolations({ page: phone }, 'the phone\'s terminal, dark')).toEqual([]);
    await phone.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await ph.shot('phone-terminal-light');
    // "Larger text": a size read at arm's length, the columns past the phone's width scrolled to sideways; kept for the next terminal opened.
    const fontPx = () => screen.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    const fitted = await fontPx();
    expect(fitted).toBeLessThan(12);
    const larger = phone.getByRole('button', { name: 'Larger text' });
    expect(await larger.getAttribute('aria-pressed')).toBe('false');
    await larger.tap();
    await expect.poll(fontPx).toBe(12);
    expect(await larger.getAttribute('aria-pressed')).toBe('true');
    const host = phone.locator('.phone-xterm');
    expect(await host.evaluate((el) => el.scrollWidth > el.clientWidth + 20)).toBe(true);
    expect(((await screen.textContent()) ?? '').replace(/\n/g, '')).toContain('from the phone');
    await ph.shot('phone-terminal-large-light');
    await phone.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await ph.shot('phone-terminal-large-dark');
    await phone.getByRole('button', { name: 'Back to the agents' }).tap();
    await agent.getByRole('button', { name: 'Terminal' }).tap();
    await expect.poll(async () => ((await screen.textContent({ timeout: 100 }).catch(() => '')) ?? '').replace(/\n/g, '')).toContain('from the phone');
    expect(await fontPx()).toBe(12);
    await larger.tap();
    await expect.poll(fontPx).toBe(fitted);
    expect(await larger.getAttribute('aria-pressed')).toBe('false');
    // The pane made narrower on the desktop: its next snapshot is drawn fitted again, larger.
    await conn.request('pane.resize', { paneId: panes[2]!.id, cols: 40, rows: 20 });
    await conn.request('pane.input', { paneId: panes[2]!.id, data: 'narrower now\r' });
    await expect.poll(async () => Number(await phone.locator('.phone-xterm').getAttribute('data-cols'))).toBe(40);
    await expect.poll(fontPx).toBeGreaterThan(fitted);
    await phone.getByRole('button', { name: 'Back to the agents' }).tap();
    await agent.first().waitFor();

    expect(await conn.request('devices.revoke', { name: 'Ada\'s phone' })).toEqual({ ok: true });
    await phone.getByRole('alert').filter({ hasText: 'this device was revoked: pair it again' }).waitFor();
    expect(await phone.getByRole('heading', { name: 'Pair this device' }).count()).toBe(1);
    const after = await phone.evaluate(async () => (await fetch('/api/inbox')).status);
    expect(after).toBe(401);
  }, 60_000);
});
