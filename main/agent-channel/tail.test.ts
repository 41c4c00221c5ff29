import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MAX_LINE, readNewLines } from './tail.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-tail-'));
  file = path.join(dir, 'inbound.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('reads whole new lines only, from the offset on', () => {
  expect(readNewLines(file, 0)).toEqual({ lines: [], offset: 0, dropped: 0, size: 0 });
  fs.writeFileSync(file, 'one\ntwo\nthr');
  const a = readNewLines(file, 0);
  expect(a).toEqual({ lines: ['one', 'two'], offset: 8, dropped: 0, size: 11 });
  fs.appendFileSync(file, 'ee\n\n  \nfour\n');
  expect(readNewLines(file, a.offset)).toEqual({ lines: ['three', 'four'], offset: 23, dropped: 0, size: 23 });
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
  expect(readNewLines(file, 100)).toEqual({ lines: ['a'], offset: 2, dropped: 0, size: 2 });
});

it('drops an overlong line with no end', () => {
  fs.writeFileSync(file, 'x'.repeat(MAX_LINE + 10));
  const r = readNewLines(file, 0);
  expect(r.lines).toEqual([]);
  expect(r.dropped).toBe(MAX_LINE + 10);
  fs.appendFileSync(file, 'tail\nnext\n');
  expect(readNewLines(file, r.offset).lines).toEqual(['tail', 'next']);
});

it('with a longer line limit, reads a line longer than one slice whole; with a byte budget, stops after a slice and reads on next time', () => {
  const long = 'y'.repeat(MAX_LINE * 6);
  const after = 'z'.repeat(MAX_LINE * 3);
  fs.writeFileSync(file, `${long}\nsmall\n${after}\n`);
  const r = readNewLines(file, 0, { maxLine: MAX_LINE * 8, maxBytes: 1 });
  expect(r.lines).toEqual([long, 'small']);
  expect(r.offset).toBe(long.length + 7);
  expect(r.size).toBe(fs.statSync(file).size);
  expect(readNewLines(file, r.offset, { maxLine: MAX_LINE * 8 }).lines).toEqual([after]);
});
