// Builds the renderer (renderer/index.html + renderer/main.tsx) into out/renderer.
// Relative base './' so the page loads the same from serve's HTTP root and from
// Electron's app:// protocol. No inline scripts: both shells send a strict CSP.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));
const version = String(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version);

export default defineConfig({
  root: path.join(root, 'renderer'),
  base: './',
  plugins: [react()],
  // The window's own version, to compare with the service it attaches to.
  define: { __TD_VERSION__: JSON.stringify(version) },
  build: {
    outDir: path.join(root, 'out', 'renderer'),
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: true,
    // The renderer is one window's app, loaded locally: one chunk is fine.
    chunkSizeWarningLimit: 4096,
    modulePreload: { polyfill: false },
  },
});
