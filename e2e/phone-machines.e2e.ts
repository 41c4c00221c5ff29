/**
 * The phone's inbox across machines (issue 34, with issue 33's machines): a home service
 * connected over the real ssh to an sshd the test starts (main/machines/sshd-testing.ts), a
 * phone (Chromium as an iPhone 13) paired with its door. A card of a pane on that machine
 * shows on the phone with the machine's name in its colour; answered there with a tap, the
 * line reaches the far pane and the card leaves. A far agent is in the Agents tab with the
 * machine's name; its terminal (peeked on that machine) is read-only until the desktop lets
 * the phone type, then the line and the key bar reach the far pane. Screenshots, dark and light.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { farPaneFolder, startFarMachine, type FarMachine, stopFarMachine } from '../main/machines/sshd-testing.ts';
import { axeViolations, dropSurface, launchBrowser, startServe, type Serve } from './harness.ts';
import { pairedPhone, type Phone } from './phone.ts';

let m: FarMachine;
let serve: Serve;
let browser: Browser;
let ph: Phone;

beforeAll(async () => {
  m = await startFarMachine('build-box');
  serve = await startServe({ env: { TD_SSH_CONFIG: m.near.env.TD_SSH_CONFIG! } });
  browser = await launchBrowser();
  ph = await pairedPhone(browser, serve);
}, 120_000);

afterAll(async () => {
  await ph?.close();
  await browser?.close();
  await serve?.close();
  await stopFarMachine(m);
});

describe('the phone\'s inbox across machines', () => {
  it('shows a far card with its machine\'s name and colour, and a tap answers it on that machine', async () => {
    const { conn, page: phone } = ph;
    const machine = await conn.request('machine.connect', { target: m.alias });
    expect(machine.state).toBe('connected');
    const out = path.join(m.far.dir, 'typed-from-phone.txt');
    const far = await conn.request('pane.create', { machine: m.alias, kind: 'agent', command: ['/usr/bin/env', 'bash', '-c', `exec cat > ${out}`] });
    const folder = await farPaneFolder(m, far.id.split('/')[1]!);
    dropSurface(folder, { id: 'deploy', kind: 'decision', title: 'Deploy to staging?', model: { question: 'The build passed on build-box. Ship it to staging now?', options: [{ name: 'Ship' }, { name: 'Wait' }] } });

    const card = phone.locator('.phone-card', { hasText: 'Deploy to staging?' });
    await card.waitFor({ timeout: 30_000 });
    const badge = card.locator('.phone-machine');
    await expect.poll(() => badge.textContent(), { timeout: 20_000 }).toBe(m.alias);
    // Its colour: the machine's, on the badge's border (the text keeps the theme's colour).
    const hex = machine.colour.slice(1).match(/../g)!.map((h) => parseInt(h, 16));
    await expect.poll(() => badge.evaluate((el) => getComputedStyle(el).borderTopColor), { timeout: 20_000 }).toBe(`rgb(${hex.join(', ')})`);
    expect(await card.locator('.phone-meta').textContent()).toContain(`${m.alias}bash · `);
    await ph.shot('phone-inbox-machine-dark');
    await phone.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await ph.shot('phone-inbox-machine-light');

    await card.getByRole('button', { name: 'Ship' }).tap();
    await expect.poll(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), { timeout: 20_000 }).toMatch(/\] choose on surface deploy · Ship\n$/);
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8').trim())).toMatchObject({ type: 'action', surface: 'deploy', action: 'choose', target: 'Ship' });
    await card.waitFor({ state: 'detached' });
    await phone.getByText('Nothing waits for you').waitFor();
  }, 120_000);

  it('shows a far agent with its machine\'s name, its terminal read-only, and types into it once allowed', async () => {
    const { conn, page: phone } = ph;
    const machine = (await conn.request('machine.list', {})).find((x) => x.name === m.alias)!;
    const typed = path.join(m.far.dir, 'typed-into-far-agent.txt');
    const far = await conn.request('pane.create', { machine: m.alias, kind: 'agent', command: ['/usr/bin/env', 'bash', '-c', `printf '\\033[31mPlanning the deploy on build-box\\033[0m\\n'; exec cat > ${typed}`] });

    await phone.getByRole('tab', { name: /Agents/ }).tap();
    const agent = phone.locator('.phone-agent', { hasText: 'Planning the deploy on build-box' });
    await agent.waitFor({ timeout: 30_000 });
    const badge = agent.locator('.phone-machine');
    // (The card can show before what the phone knows of its machine: its badge is looked at until it says so.)
    await expect.poll(() => badge.textContent(), { timeout: 20_000 }).toBe(m.alias);
    const hex = machine.colour.slice(1).match(/../g)!.map((h) => parseInt(h, 16));
    await expect.poll(() => badge.evaluate((el) => getComputedStyle(el).borderTopColor), { timeout: 20_000 }).toBe(`rgb(${hex.join(', ')})`);
    await ph.shot('phone-agents-machine-light');
    await phone.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await ph.shot('phone-agents-machine-dark');

    // Its terminal: read from that machine, colours kept, read-only.
    await agent.getByRole('button', { name: 'Terminal' }).tap();
    const screen = phone.locator('.phone-xterm .xterm-rows');
    await expect.poll(async () => ((await screen.textContent({ timeout: 100 }).catch(() => '')) ?? '').replace(/\n/g, ''), { timeout: 20_000 }).toContain('Planning the deploy on build-box');
    expect(await screen.locator('span', { hasText: 'Planning' }).first().evaluate((el) => getComputedStyle(el).color)).toBe('rgb(240, 114, 122)');
    expect(await phone.locator('.phone-top .phone-machine').textContent()).toBe(m.alias);
    expect(await phone.getByText('Read-only: answer its cards in the Inbox.').count()).toBe(1);
    expect(await axeViolations({ page: phone }, 'a far agent\'s terminal on the phone, dark')).toEqual([]);

    // Allowed on the desktop: the line and the key bar go to that machine's pane, and its echo comes back.
    expect(await conn.request('devices.allowTyping', { name: 'Ada\'s phone', allow: true })).toEqual({ ok: true });
    await phone.getByRole('button', { name: 'Back to the agents' }).tap();
    await agent.getByRole('button', { name: 'Terminal' }).tap();
    await phone.getByRole('switch', { name: 'Type into this terminal' }).tap();
    await phone.getByLabel('Text to type').fill('ship it from the train');
    await phone.getByRole('button', { name: 'Send' }).tap();
    await phone.getByRole('toolbar', { name: 'Keys' }).getByRole('button', { name: 'Enter' }).tap();
    await expect.poll(() => fs.existsSync(typed) && fs.readFileSync(typed, 'utf8'), { timeout: 20_000 }).toBe('ship it from the train\n');
    await expect.poll(async () => ((await screen.textContent()) ?? '').replace(/\n/g, ''), { timeout: 20_000 }).toContain('ship it from the train');
    await ph.shot('phone-terminal-machine-dark');
    await phone.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await ph.shot('phone-terminal-machine-light');
    await phone.getByRole('button', { name: 'Back to the agents' }).tap();
    expect(far.id.startsWith(`${m.alias}/`)).toBe(true);
  }, 120_000);
});
