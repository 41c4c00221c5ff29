import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { MAX_LINE, readNewLines, type Unfinished } from './tail.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-tail-'));
  file = path.join(dir, 'inbound.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('reads whole new lines only, from the offset on', () => {
  expect(readNewLines(file, 0)).toEqual({ lines: [], offset: 0, dropped: 0, size: 0, read: 0, more: false });
  fs.writeFileSync(file, 'one\ntwo\nthr');
  const a = readNewLines(file, 0);
  expect(a).toEqual({ lines: ['one', 'two'], offset: 8, dropped: 0, size: 11, read: 11, more: false, unfinished: [Buffer.from('thr')] });
  fs.appendFileSync(file, 'ee\n\n  \nfour\n');
  expect(readNewLines(file, a.offset)).toEqual({ lines: ['three', 'four'], offset: 23, dropped: 0, size: 23, read: 15, more: false });
  // Given back, the unfinished line is read on from its end.
  expect(readNewLines(file, a.offset, { unfinished: a.unfinished })).toEqual({ lines: ['three', 'four'], offset: 23, dropped: 0, size: 23, read: 12, more: false });
  expect(readNewLines(file, 23).lines).toEqual([]);
});

it('keeps multi-byte characters whole across reads', () => {
  fs.writeFileSync(file, 'é');
  expect(readNewLines(file, 0).lines).toEqual([]);
  fs.appendFileSync(file, 'tè ☕\n');
  expect(readNewLines(file, 0).lines).toEqual(['étè ☕']);
});

it('reads a file that shrank from its start', () => {
  fs.writeFileSync(file, 'a\n');
  expect(readNewLines(file, 100)).toEqual({ lines: ['a'], offset: 2, dropped: 0, size: 2, read: 2, more: false });
});

it('drops an overlong line with no end, to its newline (also a read that starts inside it)', () => {
  fs.writeFileSync(file, 'x'.repeat(MAX_LINE + 10));
  const r = readNewLines(file, 0);
  expect(r.lines).toEqual([]);
  expect(r.dropped).toBe(MAX_LINE + 10);
  expect(r.unfinished).toBeUndefined();
  fs.appendFileSync(file, 'tail\nnext\n');
  expect(readNewLines(file, r.offset)).toMatchObject({ lines: ['next'], dropped: 5 });
  // Whole, too: a line over the maximum is dropped with its newline, the lines around it kept.
  fs.writeFileSync(file, `a\n${'x'.repeat(MAX_LINE + 1)}\nb\n`);
  expect(readNewLines(file, 0)).toMatchObject({ lines: ['a', 'b'], dropped: MAX_LINE + 2 });
});

/** Bytes read from files while `fn` runs (fs.readSync passed through, summed). */
function bytesRead<T>(fn: () => T): { value: T; bytes: number } {
  const real = fs.readSync;
  let bytes = 0;
  const spy = vi.spyOn(fs, 'readSync').mockImplementation(((...args: Parameters<typeof fs.readSync>) => {
    const n = (real as (...a: Parameters<typeof fs.readSync>) => number)(...args);
    bytes += n;
    return n;
  }) as typeof fs.readSync);
  try {
    return { value: fn(), bytes };
  } finally {
    spy.mockRestore();
  }
}

it('a very long line still being written: each look reads only what came since, within its budget, and the line comes whole with its newline', () => {
  const MiB = 1024 * 1024;
  const budget = 4 * MiB;
  const opts = { maxLine: 64 * MiB, maxBytes: budget };
  fs.writeFileSync(file, 'first\n');
  let offset = 0;
  let unfinished: Unfinished | undefined;
  const got: string[] = [];
  let total = 0;
  const look = () => {
    const { value: r, bytes } = bytesRead(() => readNewLines(file, offset, { ...opts, unfinished }));
    expect(bytes).toBeLessThanOrEqual(budget + 1);
    total += bytes;
    offset = r.offset;
    unfinished = r.unfinished;
    got.push(...r.lines);
    return r;
  };
  // A 50 MB JSON line written 5 MB at a time, looked at after each write (twice after some).
  const body = 'y'.repeat(5 * 1000 * 1000);
  fs.appendFileSync(file, '{"text":"');
  for (let step = 0; step < 10; step++) {
    fs.appendFileSync(file, body);
    look();
    if (step % 3 === 0) look();
  }
  fs.appendFileSync(file, '"}\nafter\n');
  while (look().more) {
    // read on at the next looks
  }
  expect(got.length).toBe(3);
  expect(got[0]).toBe('first');
  expect(got[1]!.length).toBe(50 * 1000 * 1000 + 11);
  expect(JSON.parse(got[1]!).text.length).toBe(50 * 1000 * 1000);
  expect(got[2]).toBe('after');
  expect(offset).toBe(fs.statSync(file).size);
  expect(unfinished).toBeUndefined();
  // Every byte read once (and the byte before the offset once, to know it starts a line).
  expect(total).toBeGreaterThanOrEqual(fs.statSync(file).size);
  expect(total).toBeLessThanOrEqual(fs.statSync(file).size + 1);
});

it('a line over the maximum still being written is skipped as it grows, never held, and the next line read', () => {
  const MiB = 1024 * 1024;
  const opts = { maxLine: 8 * MiB, maxBytes: 4 * MiB };
  let offset = 0;
  let unfinished: Unfinished | undefined;
  let dropped = 0;
  const got: string[] = [];
  const look = () => {
    const { value: r, bytes } = bytesRead(() => readNewLines(file, offset, { ...opts, unfinished }));
    expect(bytes).toBeLessThanOrEqual(4 * MiB + 1);
    offset = r.offset;
    unfinished = r.unfinished;
    dropped += r.dropped;
    got.push(...r.lines);
    return r;
  };
  fs.writeFileSync(file, '');
  for (let step = 0; step < 6; step++) {
    fs.appendFileSync(file, 'z'.repeat(3 * MiB));
    while (look().more) {
      // on
    }
    expect(unfinished ? Buffer.concat(unfinished).length : 0).toBeLessThanOrEqual(8 * MiB);
  }
  expect(unfinished).toBeUndefined();
  fs.appendFileSync(file, 'zz\nnext\n');
  while (look().more) {
    // on
  }
  expect(got).toEqual(['next']);
  expect(dropped).toBe(18 * MiB + 3);
});

it('with a longer line limit, reads a line longer than one slice whole; with a byte budget, stops after a slice and reads on next time', () => {
  const long = 'y'.repeat(MAX_LINE * 6);
  const after = 'z'.repeat(MAX_LINE * 3);
  fs.writeFileSync(file, `${long}\nsmall\n${after}\n`);
  const opts = { maxLine: MAX_LINE * 8, maxBytes: 1 };
  const r = readNewLines(file, 0, opts);
  expect(r).toMatchObject({ lines: [], offset: 0, read: MAX_LINE * 4, more: true });
  const s = readNewLines(file, 0, { ...opts, unfinished: r.unfinished });
  expect(s.lines).toEqual([long, 'small']);
  expect(s.offset).toBe(long.length + 7);
  expect(s.size).toBe(fs.statSync(file).size);
  expect(readNewLines(file, s.offset, { maxLine: MAX_LINE * 8 }).lines).toEqual([after]);
  // Without what the first read gave, the line is read again from its start.
  expect(readNewLines(file, 0, { maxLine: MAX_LINE * 8 }).lines).toEqual([long, 'small', after]);
});
