import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anyNewer } from './newer-files.ts';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A file modified at `mtimeS` seconds after the epoch (anyNewer takes ms). */
function file(rel: string, mtimeS: number): string {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, 'x');
  fs.utimesSync(p, mtimeS, mtimeS);
  return p;
}

describe('anyNewer', () => {
  it('finds a file below the folders modified after the time, of the names asked, outside node_modules', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-newer-'));
    file('src/a/old.ts', 1000);
    file('src/node_modules/new.ts', 3000);
    file('src/a/new.txt', 3000);
    const src = path.join(dir, 'src');
    expect(anyNewer([src], 2000_000)).toBe(true);
    expect(anyNewer([src], 2000_000, /\.ts$/)).toBe(false);
    file('src/a/b/new.ts', 3000);
    expect(anyNewer([src], 2000_000, /\.ts$/)).toBe(true);
    expect(anyNewer([src], 3000_000)).toBe(false);
    // A file named is looked at itself; one that is not there counts as none.
    expect(anyNewer([file('top.json', 3000), path.join(dir, 'gone')], 2000_000)).toBe(true);
    expect(anyNewer([path.join(dir, 'gone')], 0)).toBe(false);
  });

  it('takes an editor\'s lock link to nowhere for no file, and does not throw', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-newer-'));
    file('src/old.ts', 1000);
    fs.symlinkSync('user@host.1234:1700000000', path.join(dir, 'src', '.#old.ts'));
    expect(anyNewer([path.join(dir, 'src')], 2000_000, /\.ts$/)).toBe(false);
  });
});
