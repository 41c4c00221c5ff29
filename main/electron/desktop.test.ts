import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Surface } from '../../preload/contract.ts';
import type { MenuItemConstructorOptions } from 'electron';
import { menuTemplate, offersDevTools, revealTarget, shouldNotifyNatively } from './desktop.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-desktop-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function artifact(location: unknown, kind = 'artifact'): Surface {
  return { id: 's1', kind, title: 'report', model: { location } } as unknown as Surface;
}

describe('shouldNotifyNatively', () => {
  it('notifies when the app is not in front, or for a pane other than the focused one', () => {
    expect(shouldNotifyNatively({ paneId: 'p1' }, false, 'p1')).toBe(true);
    expect(shouldNotifyNatively({ paneId: 'p2' }, true, 'p1')).toBe(true);
    expect(shouldNotifyNatively({ paneId: 'p1' }, true, 'p1')).toBe(false);
    expect(shouldNotifyNatively({}, true, 'p1')).toBe(false);
    expect(shouldNotifyNatively({}, false, null)).toBe(true);
  });
});

describe('revealTarget', () => {
  it('gives the local file of an artifact, as a path or a file:// address', () => {
    const file = path.join(dir, 'data.xlsx');
    fs.writeFileSync(file, 'x');
    expect(revealTarget(artifact(file), 's1')).toEqual({ file });
    expect(revealTarget(artifact(`file://${file}`), 's1')).toEqual({ file });
  });
  it('refuses, in one sentence, what is not a local artifact file', () => {
    expect(revealTarget(undefined, 's9')).toEqual({ error: expect.stringMatching(/no surface "s9"/) });
    expect(revealTarget(artifact('/x', 'response'), 's1')).toEqual({ error: expect.stringMatching(/not an artifact/) });
    expect(revealTarget(artifact('https://example.com/a.pdf'), 's1')).toEqual({ error: expect.stringMatching(/not a local file/) });
    expect(revealTarget(artifact(path.join(dir, 'gone.pdf')), 's1')).toEqual({ error: expect.stringMatching(/is not there/) });
    expect(revealTarget(artifact(dir), 's1')).toEqual({ error: expect.stringMatching(/is not there/) });
  });
  it('refuses programs and launchers, which the desktop would run rather than show', () => {
    const script = path.join(dir, 'report');
    fs.writeFileSync(script, '#!/bin/sh\ntouch /tmp/pwned\n', { mode: 0o755 });
    expect(revealTarget(artifact(script), 's1')).toEqual({ error: expect.stringMatching(/^report is a program or launcher.*open it yourself/) });
    for (const name of ['evil.desktop', 'setup.EXE', 'run.sh', 'x.command', 'a.jar']) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, 'x', { mode: 0o644 });
      expect(revealTarget(artifact(file), 's1'), name).toEqual({ error: expect.stringMatching(/is a program or launcher/) });
    }
    const pdf = path.join(dir, 'plain.pdf');
    fs.writeFileSync(pdf, 'x', { mode: 0o644 });
    expect(revealTarget(artifact(pdf), 's1')).toEqual({ file: pdf });
  });
});

describe('artifact.reveal in serve', () => {
  it('answers that the browser downloads the file instead (only Electron opens it on the desktop)', async () => {
    const { createApp } = await import('../app.ts');
    const { tempState } = await import('../panes/testing.ts');
    const state = tempState('td-reveal-');
    const app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    try {
      const r = await app.core.request('artifact.reveal', { paneId: 'p1', surfaceId: 's1' }, { id: 'w' });
      expect(r).toEqual({ ok: false, error: expect.stringMatching(/browser: download the file/) });
    } finally {
      await app.dispose();
      state.cleanup();
    }
  });
});

describe('offersDevTools', () => {
  it('offers Developer Tools in development only, never in a packaged app', () => {
    expect(offersDevTools({ isPackaged: false })).toBe(true);
    expect(offersDevTools({ isPackaged: true })).toBe(false);
  });
});

describe('menuTemplate (issue 35, item 10)', () => {
  const items = (list: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
    list.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu as MenuItemConstructorOptions[]) : [])]);
  const on = { command: () => undefined, quitAll: () => undefined, devTools: true };
  for (const platform of ['linux', 'win32']) {
    it(`binds nothing to Ctrl+W on ${platform}: the terminal's delete-word never closes the window`, () => {
      const all = items(menuTemplate(platform, on));
      expect(all.filter((i) => /^(CmdOrCtrl|CommandOrControl|Ctrl|Control)\+W$/i.test(String(i.accelerator ?? '')))).toEqual([]);
      // Electron's roles that carry Ctrl+W by default: 'close', and 'windowMenu' (which holds 'close' off macOS).
      expect(all.filter((i) => i.role === 'close' || i.role === 'windowMenu' || i.role === 'fileMenu')).toEqual([]);
      expect(all.some((i) => i.label === 'Close Window' && !i.accelerator)).toBe(true);
      expect(all.find((i) => i.label === 'Close Pane')?.accelerator).toBe('CmdOrCtrl+Shift+W');
    });
  }
  it('keeps the macOS Window menu (Cmd+W)', () => {
    expect(menuTemplate('darwin', on).some((i) => i.role === 'windowMenu')).toBe(true);
  });
});
