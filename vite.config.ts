// Builds the renderer (renderer/index.html + renderer/main.tsx) into out/renderer.
// Relative base './' so the page loads the same from serve's HTTP root and from
// Electron's app:// protocol. No inline scripts: both shells send a strict CSP.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));
const version = String(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version);

/**
 * renderer/early.ts is an entry of its own, put first in the built index.html: it opens the
 * window's socket while the main bundle still downloads (in one HTML entry, vite would bundle
 * every script of the page into one file, run only once all of it has loaded).
 */
function earlyScript(): Plugin {
  return {
    name: 'td-early-script',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find((c) => c.type === 'chunk' && c.isEntry && c.name === 'early');
        if (!chunk) return html;
        // async: it runs once fetched, not after the stylesheet and the parse as deferred scripts do;
        // the main bundle imports it, so it still runs (once) before the main bundle does.
        return { html, tags: [{ tag: 'script', attrs: { type: 'module', async: true, crossorigin: true, src: `./${chunk.fileName}` }, injectTo: 'head-prepend' }] };
      },
    },
  };
}

export default defineConfig({
  root: path.join(root, 'renderer'),
  base: './',
  plugins: [react(), earlyScript()],
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
    rollupOptions: { input: { index: path.join(root, 'renderer', 'index.html'), early: path.join(root, 'renderer', 'early.ts') } },
  },
});
