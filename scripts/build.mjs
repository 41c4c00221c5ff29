#!/usr/bin/env node
// Builds the renderer into out/renderer (both shells serve it). With --electron, also
// bundles main/electron/main.ts and preload/index.ts into out/electron for Electron.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// vite.config.ts sets its own root (renderer/) and output (out/renderer).
await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
if (process.argv.includes('--electron')) {
  const { buildElectron } = await import('./build-electron.mjs');
  await buildElectron(root);
}
