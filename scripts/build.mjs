#!/usr/bin/env node
// Builds the renderer into out/renderer (both shells serve it) and bundles the service into
// out/service/service.mjs (the core starts from it, not type-stripped at every start). With
// --electron, also bundles main/electron/main.ts and preload/index.ts into out/electron for
// Electron; with --service, builds only the Node bundles: the service's and serve's
// (out/serve/serve.mjs, the relay `npm start` and `terminal-delight serve` run).
//
// The renderer is built into a fresh folder beside out/renderer and then swapped in
// with two renames, so a window (or a test) loading the page while a build runs never
// finds out/renderer empty or half written.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { buildService, buildServe } = await import('./bundle.mjs');
if (process.argv.includes('--service')) {
  await buildService(root);
  await buildServe(root);
  process.exit(0);
}
const out = path.join(root, 'out', 'renderer');
const next = `${out}.next-${process.pid}`;
const old = `${out}.old-${process.pid}`;
try {
  // vite.config.ts sets its own root (renderer/); only the output folder changes here.
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir: next, emptyOutDir: true } });
  // Another build may swap at the same moment: retry the two renames a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      fs.rmSync(old, { recursive: true, force: true });
      if (fs.existsSync(out)) fs.renameSync(out, old);
      fs.renameSync(next, out);
      break;
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
} finally {
  fs.rmSync(next, { recursive: true, force: true });
  fs.rmSync(old, { recursive: true, force: true });
}
await buildService(root);
await buildServe(root);
if (process.argv.includes('--electron')) {
  const { buildElectron } = await import('./build-electron.mjs');
  await buildElectron(root);
}
