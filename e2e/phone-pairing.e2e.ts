/**
 * Pairing as a phone meets it (issue 34): Chromium as an iPhone 13 over HTTPS on a loopback
 * address, typing the code on the door's page. Five wrong codes end the pairing and a sixth
 * try, with the right code, is refused; a code typed after its pairing expired is refused
 * (the service runs with TD_TEST_PAIRING_MS=8000: a browser test cannot move its clock by 5
 * minutes); the right code of an open pairing pairs. Each refusal is the sentence on the page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceConnection } from '../main/service/client.ts';
import { launchBrowser, startServe, type Serve } from './harness.ts';
import { phoneAtDoor } from './phone.ts';

let serve: Serve;
let browser: Browser;
let conn: ServiceConnection;
let phone: Page;
let door: string;
let closeContext: () => Promise<void>;

beforeAll(async () => {
  serve = await startServe({ env: { TD_TEST_PAIRING_MS: '8000' } });
  browser = await launchBrowser();
  const p = await phoneAtDoor(browser, serve);
  ({ conn, page: phone, url: door } = p);
  closeContext = () => p.context.close();
}, 60_000);

afterAll(async () => {
  await closeContext?.().catch(() => undefined);
  conn?.close();
  await browser?.close();
  await serve?.close();
});

async function typeCode(code: string): Promise<string> {
  await phone.getByLabel('Code').fill(code);
  await phone.getByRole('button', { name: 'Pair' }).tap();
  const alert = phone.getByRole('alert');
  // The sentence of this try (the alert of the one before is replaced).
  await expect.poll(async () => (await alert.count()) > 0 && !(await phone.getByRole('button', { name: 'Pairing…' }).count())).toBe(true);
  return (await alert.textContent())!;
}

describe('pairing a phone by its code', () => {
  it('ends after 5 wrong codes (a sixth try, right, is refused), refuses an expired code, and pairs with the right one', async () => {
    await phone.goto(door);
    await phone.getByRole('heading', { name: 'Pair this device' }).waitFor();
    await phone.getByLabel('This device\'s name').fill('Ada\'s phone');

    const first = await conn.request('devices.pair', {});
    if (!first.ok) throw new Error(first.error);
    const wrong = first.pairing.code === 'AAAAAAAA' ? 'CCCCCCCC' : 'AAAAAAAA';
    for (let left = 4; left >= 1; left--) {
      await phone.getByLabel('Code').fill('');
      expect(await typeCode(wrong)).toBe(`That code is wrong: ${left} ${left === 1 ? 'try' : 'tries'} left; check the code the desktop shows.`);
    }
    expect(await typeCode(wrong)).toBe('This pairing ended after 5 wrong tries: start a new pairing on the desktop.');
    // The sixth try, with the right code.
    expect(await typeCode(first.pairing.code)).toBe('This pairing ended after 5 wrong tries: start a new pairing on the desktop.');
    expect((await conn.request('devices.state', {})).devices).toEqual([]);

    // A new pairing, left to expire, then its right code typed.
    const second = await conn.request('devices.pair', {});
    if (!second.ok) throw new Error(second.error);
    await expect.poll(async () => (await conn.request('devices.state', {})).pairing?.ended, { timeout: 20_000 }).toBe('expired');
    expect(await typeCode(second.pairing.code)).toBe('This pairing expired (a code is good for 5 minutes): start a new pairing on the desktop.');
    expect((await conn.request('devices.state', {})).devices).toEqual([]);

    // An open pairing's code, as the window shows it (a space in the middle, any case): paired.
    const third = await conn.request('devices.pair', {});
    if (!third.ok) throw new Error(third.error);
    await phone.getByLabel('Code').fill(`${third.pairing.code.slice(0, 4)} ${third.pairing.code.slice(4).toLowerCase()}`);
    await phone.getByRole('button', { name: 'Pair' }).tap();
    await phone.getByRole('tab', { name: /Inbox/ }).waitFor();
    expect((await conn.request('devices.state', {})).devices).toEqual([expect.objectContaining({ name: 'Ada\'s phone' })]);
  }, 60_000);
});
