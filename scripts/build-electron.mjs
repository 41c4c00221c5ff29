// Bundles the Electron shell for `npm start` (with Electron) and `npm run dist`:
// main/electron/main.ts -> out/electron/main.js (ESM; node-pty, electron and the other
// dependencies stay external, shipped in node_modules), preload/index.ts ->
// out/electron/preload.cjs (CommonJS, as sandboxed preloads must be).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { bundleMain } from './bundle.mjs';

export async function buildElectron(root) {
  await bundleMain(root, { entry: path.join('main', 'electron', 'main.ts'), folder: 'electron', file: 'main.js' });
  const outDir = path.join(root, 'out', 'electron');
  const common = { configFile: false, root, logLevel: 'warn', publicDir: false };
  await build({
    ...common,
    build: {
      outDir,
      emptyOutDir: false,
      target: 'node22',
      minify: false,
      sourcemap: true,
      ssr: path.join(root, 'preload', 'index.ts'),
      rollupOptions: { external: ['electron'], output: { format: 'cjs', entryFileNames: 'preload.cjs' } },
    },
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildElectron(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
}
