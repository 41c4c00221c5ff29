/**
 * Full panes for the attach diagnostics (bench/attach-profile.ts, bench/first-paint-cost.ts):
 * a file of 10,000 numbered lines of ~70 characters, and N panes of a service each filled
 * with a `cat` of it through a window without a page, then that window closed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { wsWindow } from './ws-window.ts';

/** 10,000 numbered lines of ~70 characters, written in `dir`; its path. */
export function fillFile(dir: string): string {
  const file = path.join(dir, 'fill.txt');
  fs.writeFileSync(file, `${Array.from({ length: 10_000 }, (_, i) => `${String(i).padStart(5, '0')} ${'the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJ'.slice(0, 63)}`).join('\n')}\n`);
  return file;
}

/** `count` panes (the first the service's own, the rest made), each showing `cat file` done at its prompt; their ids. `resize`: each then sized so. */
export async function fillPanes(url: string, file: string, count: number, resize?: { cols: number; rows: number }): Promise<string[]> {
  const win = await wsWindow(url);
  try {
    const hello = await win.request<{ panes: Array<{ id: string }> }>('app.hello', {});
    const ids = [hello.panes[0]!.id];
    for (let i = 1; i < count; i++) ids.push((await win.request<{ id: string }>('pane.create', {})).id);
    for (const id of ids) {
      await win.redraw(id);
      await win.until(id, /\$ *$/, 60_000);
    }
    for (const id of ids) win.send('pane.input', { paneId: id, data: `cat ${file}; echo fill-done\r` });
    for (const id of ids) await win.until(id, /fill-done\r\n.*\$ *$/s, 120_000);
    if (resize) for (const id of ids) await win.request('pane.resize', { paneId: id, ...resize });
    return ids;
  } finally {
    win.close();
  }
}
