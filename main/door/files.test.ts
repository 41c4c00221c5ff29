/** The renderer's static files: never a file outside its folder, by `..`, encoding or symlink; hashed assets kept in memory. Real files. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { isHashedAsset, mimeType, RendererFiles, resolveStatic } from './files.ts';

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

describe('isHashedAsset', () => {
  it('is true for vite\'s assets/<name>-<hash>.<ext> and nothing else', () => {
    for (const p of ['/assets/index-C2c8prz0.js', '/assets/early-wUUzNGP5.js', '/assets/index-C280Yj9u.css', '/assets/chunk-BG4553SI-BGse-RE-.js', '/assets/cytoscape.esm-nTrd5EVq.js.map']) {
      expect(isHashedAsset(p), p).toBe(true);
    }
    for (const p of ['/', '/index.html', '/icon.svg', '/assets/app.js', '/assets/sub/x-C2c8prz0.js', '/x/index-C2c8prz0.js', '/assets/..%2findex-C2c8prz0.js', '/assets/index-C2c8.js']) {
      expect(isHashedAsset(p), p).toBe(false);
    }
  });
});

describe('RendererFiles', () => {
  it('reads a hashed asset once and keeps it; index.html and unhashed files are read at each request', async () => {
    const hashed = path.join(root, 'assets', 'main-AbCd1234.js');
    fs.writeFileSync(hashed, 'first');
    const files = new RendererFiles(root);
    const a = await files.get('/assets/main-AbCd1234.js');
    expect(a).toMatchObject({ immutable: true, type: expect.stringMatching(/javascript/) });
    expect(a!.body.toString()).toBe('first');
    // Never the case after a real build (a new content is a new name): shows that it is not read again.
    fs.writeFileSync(hashed, 'second');
    expect((await files.get('/assets/main-AbCd1234.js'))!.body.toString()).toBe('first');
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>new</title>');
    expect(await files.get('/')).toMatchObject({ immutable: false, type: expect.stringMatching(/text\/html/) });
    expect((await files.get('/'))!.body.toString()).toContain('new');
    expect((await files.get('/assets/app.js'))!.immutable).toBe(false);
  });

  it('keeps no more than its limit: a larger asset is read each time', async () => {
    const big = path.join(root, 'assets', 'big-Zz99Yy88.js');
    fs.writeFileSync(big, 'x'.repeat(100));
    const files = new RendererFiles(root, 50);
    expect((await files.get('/assets/big-Zz99Yy88.js'))!.body.length).toBe(100);
    fs.writeFileSync(big, 'y'.repeat(100));
    expect((await files.get('/assets/big-Zz99Yy88.js'))!.body.toString()).toBe('y'.repeat(100));
  });

  it('answers nothing for a path outside the folder or a missing file', async () => {
    const files = new RendererFiles(root);
    for (const p of ['/../secret.txt', '/assets/leak.txt', '/assets/..%2f..%2fsecret.txt', '/assets/none-AbCd1234.js']) {
      expect(await files.get(p), p).toBeUndefined();
    }
  });
});
