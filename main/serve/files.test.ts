/** The renderer's static files: never a file outside its folder, by `..`, encoding or symlink. Real files. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { mimeType, resolveStatic } from './files.ts';

let state: ReturnType<typeof tempState>;
let root: string;

beforeAll(() => {
  state = tempState('td-files-');
  root = path.join(state.dir, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), '1');
  fs.writeFileSync(path.join(state.dir, 'secret.txt'), 'secret');
  fs.mkdirSync(path.join(state.dir, 'elsewhere'));
  fs.writeFileSync(path.join(state.dir, 'elsewhere', 'index.html'), 'not ours');
  fs.symlinkSync(path.join(state.dir, 'secret.txt'), path.join(root, 'assets', 'leak.txt'));
  fs.symlinkSync(path.join(state.dir, 'elsewhere'), path.join(root, 'outdir'));
  fs.symlinkSync(path.join(root, 'assets', 'app.js'), path.join(root, 'assets', 'alias.js'));
});

afterAll(() => state.cleanup());

describe('resolveStatic', () => {
  it('serves files and folders\' index.html inside the folder, symlinks that stay inside included', () => {
    expect(resolveStatic(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveStatic(root, '/assets/app.js')).toBe(path.join(root, 'assets', 'app.js'));
    expect(resolveStatic(root, '/assets/alias.js')).toBe(path.join(root, 'assets', 'alias.js'));
    expect(mimeType('x.js')).toMatch(/javascript/);
  });

  it('never answers with a file outside the folder: .., encoded, NUL, or a symlink out', () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00', '/assets/leak.txt', '/outdir/', '/outdir/index.html', '/%E0%A4%A']) {
      expect(resolveStatic(root, p), p).toBeUndefined();
    }
  });
});
