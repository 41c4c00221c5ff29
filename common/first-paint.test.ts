import { describe, expect, it } from 'vitest';
import type { Layout, PaneInfo } from '../preload/contract.ts';
import { TERMINAL_THEMES } from './themes.ts';
import { CELL, htmlText, FIRST_PAINT_MAX_CHARS, firstPaintMarkup, paletteColour, withFirstPaint, withScriptsLater, type FirstPaint, type ScreenCells } from './first-paint.ts';

function info(id: string, extra: Partial<PaneInfo> = {}): PaneInfo {
  return { id, tag: 'abcdefgh', kind: 'shell', title: '', cwd: '/home/me/src/app', command: ['bash'], status: 'running', cols: 80, rows: 24, benchOpen: false, unseen: 0, ...extra };
}

const screen = (lines: ScreenCells['lines'], cursor = { x: 0, y: 0, visible: true }): ScreenCells => ({ cols: 80, rows: lines.length, lines, cursor });
const plain = (text: string) => [{ text, fg: null, bg: null, flags: 0 }];

function paint(layout: Layout, panes: FirstPaint['panes'], extra: Partial<FirstPaint> = {}): FirstPaint {
  return { layout, focused: layout.type === 'pane' ? layout.paneId : null, panes, theme: 'dark', settings: { fontSize: 13, fontFamily: '' }, ...extra };
}

describe('htmlText', () => {
  it('escapes what could open a tag or end an attribute, and drops control characters', () => {
    expect(htmlText(`<img src=x onerror="alert('1')">&amp;`)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;');
    expect(htmlText('a\u0000b\u001bc\u007fd\u009be')).toBe('abcde');
  });
});

describe('paletteColour', () => {
  it('takes 0-15 from the theme, 16-231 from the colour cube, 232-255 from the greys, as xterm does', () => {
    expect(paletteColour(1, 'dark')).toBe(TERMINAL_THEMES.dark.red);
    expect(paletteColour(9, 'light')).toBe(TERMINAL_THEMES.light.brightRed);
    expect(paletteColour(15, 'dark')).toBe(TERMINAL_THEMES.dark.brightWhite);
    expect(paletteColour(16, 'dark')).toBe('#000000');
    expect(paletteColour(196, 'dark')).toBe('#ff0000');
    expect(paletteColour(208, 'dark')).toBe('#ff8700');
    expect(paletteColour(231, 'dark')).toBe('#ffffff');
    expect(paletteColour(232, 'dark')).toBe('#080808');
    expect(paletteColour(255, 'dark')).toBe('#eeeeee');
  });
});

describe('firstPaintMarkup', () => {
  it('draws one pane: the title bar, the header with its folder and last command, each row, the cursor as a bar', () => {
    const html = firstPaintMarkup(paint({ type: 'pane', paneId: 'p1' }, {
      p1: { info: info('p1', { lastCommand: { exitCode: 0, durationMs: 120, at: '2026-12-02T00:00:00Z' } }), screen: screen([plain('total 0'), plain('$ ')], { x: 2, y: 1, visible: true }) },
    }))!;
    expect(html).toMatch(/^<div id="td-first-paint" data-theme="dark" aria-hidden="true"><div class="app"><div class="titlebar">/);
    expect(html).toContain('<span class="titlebar-dim">1 pane</span>');
    expect(html).toContain('<span class="pane-title">bash</span><span class="pane-cwd">…/src/app</span><span class="pane-last-command ok">✓ 0.1 s</span>');
    expect(html).toContain('<div>total 0</div><div>$ <span class="first-paint-cursor bar" style="left:2ch;--cursor:#e8eaed"></span></div>');
    // No landmarks or headings of its own: a picture of the window, not a second window.
    expect(html).not.toMatch(/<(main|header|section|aside|button)\b/);
    expect(html).not.toContain('data-app-cursor');
  });

  it('marks a pane whose program asked for application cursor keys (keys typed on it follow)', () => {
    const html = firstPaintMarkup(paint({ type: 'pane', paneId: 'p1' }, { p1: { info: info('p1'), screen: { ...screen([plain('vim')]), appCursor: true } } }))!;
    expect(html).toContain('<div class="pane" data-focused="true" data-first-paint-pane="p1" data-app-cursor="true">');
  });

  it('gives runs their colours in the theme asked for, inverse swapped, attributes as CSS', () => {
    const lines = [[
      { text: 'r', fg: 1, bg: null, flags: 0 },
      { text: 'g', fg: null, bg: 2, flags: CELL.bold | CELL.underline | CELL.strike },
      { text: 'x', fg: '#12ab34', bg: 232, flags: CELL.italic | CELL.dim },
      { text: 'i', fg: null, bg: null, flags: CELL.inverse },
      { text: 'h', fg: null, bg: null, flags: CELL.invisible },
    ]];
    const light = firstPaintMarkup(paint({ type: 'pane', paneId: 'p' }, { p: { info: info('p'), screen: screen(lines, { x: 0, y: 0, visible: false }) } }, { theme: 'light' }))!;
    const t = TERMINAL_THEMES.light;
    expect(light).toContain(`<span style="color:${t.red}">r</span>`);
    expect(light).toContain(`<span style="background-color:${t.green};font-weight:bold;text-decoration:underline line-through">g</span>`);
    expect(light).toContain('<span style="color:#12ab34;background-color:#080808;font-style:italic;opacity:0.5">x</span>');
    expect(light).toContain(`<span style="color:${t.background};background-color:${t.foreground}">i</span>`);
    expect(light).toContain('<span style="visibility:hidden">h</span>');
    expect(light).toContain(`color:${t.foreground}"`);
    expect(light).not.toContain('first-paint-cursor');
  });

  it('never lets a colour or a font setting out of its declaration', () => {
    const lines = [[{ text: 'a', fg: 'red;background:url(x)', bg: 999, flags: 0 }]];
    const html = firstPaintMarkup(paint({ type: 'pane', paneId: 'p' }, { p: { info: info('p'), screen: screen(lines) } }, { settings: { fontSize: 13, fontFamily: 'Fira"; } body{display:none} x{' } }))!;
    expect(html).not.toContain('url(x)');
    expect(html).toContain('<div>a<span');
    expect(html).not.toMatch(/[{}]/);
  });

  it('escapes everything a pane shows: its screen, its title and its folder', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const html = firstPaintMarkup(paint({ type: 'pane', paneId: 'p' }, { p: { info: info('p', { title: `${evil}\u001b]0;x`, cwd: `/tmp/${evil}/a` }), screen: screen([plain(evil)]) } }))!;
    expect(html).not.toContain('<img src=x');
    expect(html.match(/&lt;img src=x onerror=alert\(1\)&gt;/g)).toHaveLength(3);
  });

  it('lays a split out in its proportions, each pane with its own header, the unfocused cursor as an outline', () => {
    const layout: Layout = { type: 'split', direction: 'row', sizes: [3, 1], children: [{ type: 'pane', paneId: 'a' }, { type: 'split', direction: 'column', sizes: [], children: [{ type: 'pane', paneId: 'b' }, { type: 'pane', paneId: 'c' }] }] };
    const panes = Object.fromEntries(['a', 'b', 'c'].map((id) => [id, { info: info(id, { title: `title ${id}`, benchOpen: id === 'c' }), screen: screen([plain(`in ${id}`)]) }]));
    const html = firstPaintMarkup(paint(layout, panes, { focused: 'b' }))!;
    expect(html).toContain('<span class="titlebar-dim">3 panes</span>');
    expect(html).toMatch(/<div class="split split-row"><div class="split-child" style="flex:0.75 1 0px"><div class="pane" data-focused="false" data-first-paint-pane="a">.*<\/div><div class="divider divider-vertical"><\/div><div class="split-child" style="flex:0.25 1 0px"><div class="split split-column"><div class="split-child" style="flex:0.5 1 0px">/);
    expect(html).toContain('<div class="pane" data-focused="true" data-first-paint-pane="b"><div class="pane-header" data-focused="true">');
    expect(html).toContain('<div class="divider divider-horizontal"></div>');
    expect(html.match(/first-paint-cursor outline/g)).toHaveLength(2);
    expect(html.match(/first-paint-cursor bar/g)).toHaveLength(1);
    expect(html.match(/class="pane-bench"/g)).toHaveLength(1);
    expect(['a', 'b', 'c'].map((id) => html.indexOf(`in ${id}`))).toEqual([...['a', 'b', 'c'].map((id) => html.indexOf(`in ${id}`))].sort((x, y) => x - y));
  });

  it('draws nothing where the window will not look like it: a pane it has no screen of, a pane ended with the service, markup too large', () => {
    const layout: Layout = { type: 'split', direction: 'row', sizes: [1, 1], children: [{ type: 'pane', paneId: 'a' }, { type: 'pane', paneId: 'b' }] };
    expect(firstPaintMarkup(paint(layout, { a: { info: info('a'), screen: screen([]) } }))).toBeUndefined();
    const ended = { reason: 'the service stopped', at: '2026-12-02T00:00:00Z', resumeArgv: ['bash'] };
    expect(firstPaintMarkup(paint({ type: 'pane', paneId: 'a' }, { a: { info: info('a', { ended, status: 'exited' }), screen: screen([]) } }))).toBeUndefined();
    const huge = Array.from({ length: 60 }, () => Array.from({ length: 2000 }, (_, i) => ({ text: 'x', fg: i % 256, bg: null, flags: 0 })));
    expect(firstPaintMarkup(paint({ type: 'pane', paneId: 'a' }, { a: { info: info('a'), screen: screen(huge) } }))).toBeUndefined();
    expect(FIRST_PAINT_MAX_CHARS).toBe(1024 * 1024);
  });
});

describe('withFirstPaint', () => {
  const index = '<!doctype html>\n<html lang="en">\n  <body>\n    <div id="root"></div>\n    <script type="module" src="./main.js"></script>\n  </body>\n</html>';

  it('puts the theme on the root element and the first paint right after the React root', () => {
    expect(withFirstPaint(index, 'light', '<div id="td-first-paint"></div>')).toBe(index.replace('<html lang="en">', '<html lang="en" data-theme="light">').replace('<div id="root"></div>', '<div id="root"></div><div id="td-first-paint"></div>'));
  });

  it('only themes a page without a first paint, and leaves a theme already there, and a page with no root, alone', () => {
    expect(withFirstPaint(index, 'dark', undefined)).toBe(index.replace('<html lang="en">', '<html lang="en" data-theme="dark">'));
    const themed = index.replace('<html lang="en">', '<html data-theme="light">');
    expect(withFirstPaint(themed, 'dark', undefined)).toBe(themed);
    expect(withFirstPaint('<p>no root</p>', 'dark', '<div>x</div>')).toBe('<p>no root</p>');
  });
});

describe('withScriptsLater', () => {
  it('leaves the deferred and module scripts inert, each preloaded in its place and in its order, the inline script as it is', () => {
    const head = '<script>early()</script>\n<script defer src="./assets/vendor-a.js"></script>\n<script type="module" crossorigin src="./assets/index-b.js"></script>\n<script src="./sync.js"></script>';
    expect(withScriptsLater(head)).toBe('<script>early()</script>\n'
      + '<link rel="preload" as="script" href="./assets/vendor-a.js"><script type="text/x-td-later" data-src="./assets/vendor-a.js"></script>\n'
      + '<link rel="modulepreload" crossorigin href="./assets/index-b.js"><script type="text/x-td-later" data-src="./assets/index-b.js" data-module="true" data-crossorigin="true"></script>\n'
      + '<script src="./sync.js"></script>');
  });
});
