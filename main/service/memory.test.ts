import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { returnMemoryWhenQuiet } from './memory.ts';
import { waitFor } from '../panes/testing.ts';

/** Panes as the returner sees them: output and removals, fed by the test. */
function panes() {
  const bus = new EventEmitter();
  return {
    onOutput: (fn: (id: string, data: string) => void) => {
      bus.on('output', fn);
      return () => bus.off('output', fn);
    },
    onRemoved: (fn: (id: string) => void) => {
      bus.on('removed', fn);
      return () => bus.off('removed', fn);
    },
    onCompacted: (fn: (id: string) => void) => {
      bus.on('compacted', fn);
      return () => bus.off('compacted', fn);
    },
    onInput: (fn: (id: string) => void) => {
      bus.on('input', fn);
      return () => bus.off('input', fn);
    },
    input: (id = 'p1') => bus.emit('input', id),
    output: (chars: number, id = 'p1') => bus.emit('output', id, 'x'.repeat(chars)),
    removed: () => bus.emit('removed', 'p1'),
    compacted: (id = 'p1') => bus.emit('compacted', id),
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('giving memory back', () => {
  it('collects once output goes quiet after a flood, not during it, and not after a trickle', async () => {
    const p = panes();
    let collected = 0;
    // (No collection during the flood: that is the steady one's, below.)
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 60, steadyChars: Number.MAX_SAFE_INTEGER });
    p.output(1000);
    await sleep(120);
    expect(collected).toBe(0);
    for (let i = 0; i < 10; i++) {
      p.output(1024 * 1024);
      await sleep(20);
    }
    expect(collected).toBe(0);
    await sleep(150);
    expect(collected).toBe(1);
    r.dispose();
  });

  it('collects a moment after a screen caught up with a flood, even as output goes on; once for several screens', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 10_000, afterMs: 60 });
    p.compacted('p1');
    p.compacted('p1');
    const start = performance.now();
    while (performance.now() - start < 40) {
      p.output(10);
      await sleep(5);
    }
    expect(collected).toBe(0);
    while (performance.now() - start < 200) {
      p.output(10);
      await sleep(5);
    }
    expect(collected).toBe(1);
    r.dispose();
  });

  it("collects concurrently a moment after a screen caught up while its own pane still floods, and gives back in full once quiet", async () => {
    const p = panes();
    const kinds: string[] = [];
    const r = returnMemoryWhenQuiet(p, () => undefined, { quietMs: 80, afterMs: 40, give: () => kinds.push('full'), between: () => kinds.push('between') });
    // A window left behind redraws: the flooding pane's screen catches up, and the flood goes on past afterMs.
    p.output(512 * 1024);
    p.compacted('p1');
    const start = performance.now();
    while (performance.now() - start < 120) {
      p.output(64 * 1024);
      await sleep(5);
    }
    expect(kinds).toEqual(['between']);
    // The flood ends: given back in full once quiet.
    await sleep(200);
    expect(kinds).toEqual(['between', 'full']);
    r.dispose();
  });

  it('collects a moment after a window went, and once a window that came has attached, not as it comes', async () => {
    const p = panes();
    const bus = new EventEmitter();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 10_000, afterMs: 30, attachedMs: 300, windows: { onWindows: (fn) => (bus.on('w', fn), () => bus.off('w', fn)) } });
    bus.emit('w', 1);
    bus.emit('w', 2);
    await sleep(80);
    expect(collected).toBe(0);
    bus.emit('w', 1);
    await sleep(80);
    expect(collected).toBe(1);
    await sleep(400);
    expect(collected).toBe(2);
    r.dispose();
  });

  it('a window that comes while a collection waits (a page reloaded) puts it off until its attach is over', async () => {
    const p = panes();
    const bus = new EventEmitter();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 150, afterMs: 100, attachedMs: 400, windows: { onWindows: (fn) => (bus.on('w', fn), () => bus.off('w', fn)) } });
    bus.emit('w', 1);
    bus.emit('w', 0);
    await sleep(20);
    bus.emit('w', 1);
    // Neither the collection a moment after the window went nor the quiet one while the new window attaches.
    await sleep(250);
    expect(collected).toBe(0);
    await waitFor(() => collected === 1, 'the collection after the attach');
    r.dispose();
  });

  it('collects a moment after work that made garbage without output (screens saved, the start), not while someone types', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 10_000, afterMs: 30, inputQuietMs: 150 });
    r.afterWork();
    await sleep(80);
    expect(collected).toBe(1);
    p.input();
    r.afterWork();
    await sleep(80);
    expect(collected).toBe(1);
    await sleep(200);
    expect(collected).toBe(2);
    r.dispose();
  });

  it('after a screen archived while another pane floods, waits for quiet', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 80, afterMs: 20 });
    p.output(512 * 1024, 'p2');
    p.compacted('p1');
    await sleep(50);
    expect(collected).toBe(0);
    await sleep(150);
    expect(collected).toBe(1);
    r.dispose();
  });

  it('collects during a flood that goes on, every so much output and no more often than asked', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 10_000, steadyChars: 2 * 1024 * 1024, steadyMs: 150 });
    const start = performance.now();
    while (performance.now() - start < 1_000) {
      p.output(512 * 1024);
      await sleep(10);
    }
    // A second of flood, never quiet: a collection every 150 ms at most, and some.
    expect(collected).toBeGreaterThanOrEqual(2);
    expect(collected).toBeLessThanOrEqual(7);
    r.dispose();
  });

  it('collects nothing while someone types into a pane that does not flood, during a flood or after it, and catches up once the keys stop', async () => {
    const p = panes();
    const kinds: string[] = [];
    const r = returnMemoryWhenQuiet(p, () => undefined, { quietMs: 60, afterMs: 30, steadyChars: 256 * 1024, steadyMs: 20, inputQuietMs: 1000, give: () => kinds.push('full'), between: () => kinds.push('between') });
    // (inputQuietMs far above the 40 ms between keys, so a loaded machine's late timers do not end the typing.)
    // A flood with keys typed every 40 ms (into another pane): no steady collection, none after a catch-up.
    const start = performance.now();
    while (performance.now() - start < 400) {
      p.input('p2');
      for (let i = 0; i < 8; i++) {
        p.output(128 * 1024);
        await sleep(5);
      }
      p.compacted();
    }
    expect(kinds).toEqual([]);
    // The flood ends while the keys go on: still nothing, though output is quiet past quietMs.
    const typed = performance.now();
    while (performance.now() - typed < 300) {
      p.input('p2');
      await sleep(40);
    }
    expect(kinds).toEqual([]);
    // The keys stop: memory is given back once they have been quiet inputQuietMs (the catch-up's
    // collection first, a plain one when the flood was within the last second, then the full one).
    await sleep(100);
    expect(kinds).toEqual([]);
    await waitFor(() => kinds.at(-1) === 'full', 'the full collection once the keys were quiet', 10_000);
    expect(kinds.length).toBeLessThanOrEqual(2);
    kinds.length = 0;
    // A command typed into the pane that then floods (a cat): its flood collects as it goes, the
    // keys that started it notwithstanding.
    p.input('p1');
    const again = performance.now();
    while (performance.now() - again < 120) {
      p.output(128 * 1024);
      await sleep(5);
    }
    expect(kinds.filter((k) => k === 'between').length).toBeGreaterThanOrEqual(1);
    r.dispose();
  });

  it('collects after a pane closed', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, { quietMs: 30 });
    p.removed();
    await sleep(100);
    expect(collected).toBe(1);
    r.dispose();
    p.removed();
    await sleep(100);
    expect(collected).toBe(1);
  });
});

describe('giveBack', () => {
  it('returns a closed scrollback to the system: 16 headless screens of 10,000 lines filled, disposed, given back', () => {
    // A real Node with --expose-gc, as the service runs, and real xterm screens.
    const script = `
      import { giveBack, mallocTrim } from ${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'memory.ts')).href)};
      import headless from '@xterm/headless';
      const rss = () => process.memoryUsage().rss;
      let screens = [];
      for (let i = 0; i < 16; i++) {
        const t = new headless.Terminal({ cols: 120, rows: 30, scrollback: 10000, allowProposedApi: true });
        let s = '';
        for (let j = 0; j < 10100; j++) s += 'line ' + j + ' of screen ' + i + '\\r\\n';
        t._core.writeSync(s);
        screens.push(t);
      }
      const filled = rss();
      for (const t of screens) t.dispose();
      screens = [];
      giveBack(globalThis.gc);
      process.stdout.write(JSON.stringify({ filled, after: rss(), trim: mallocTrim() !== null }));
    `;
    const out = execFileSync(process.execPath, ['--expose-gc', '--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' });
    const { filled, after, trim } = JSON.parse(out) as { filled: number; after: number; trim: boolean };
    // glibc (this machine's libc) is trimmed; the screens' ~220 MiB of cells leave the process.
    expect(trim).toBe(true);
    expect(filled).toBeGreaterThan(200 * 2 ** 20);
    expect(after).toBeLessThan(filled - 150 * 2 ** 20);
  });
});
