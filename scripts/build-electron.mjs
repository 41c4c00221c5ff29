// Bundles the Electron shell for `npm start` (with Electron) and `npm run dist`:
// main/electron/main.ts -> out/electron/main.js (ESM; node-pty, electron and the other
// dependencies stay external, shipped in node_modules), preload/index.ts ->
// out/electron/preload.cjs (CommonJS, as sandboxed preloads must be).
import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Modules find files beside their sources (`import.meta.dirname`, `import.meta.url`),
 * for example the Tick launcher. In one bundle those would all point at out/electron/,
 * so they are rewritten to the module's own source path under the app root (two
 * folders above the bundle), the same place they point at when Node runs the sources.
 */
function sourcePaths(root) {
  return {
    name: 'td-source-paths',
    transform(code, id) {
      const file = id.split('?')[0];
      if (!file.startsWith(root + path.sep) || file.includes(`${path.sep}node_modules${path.sep}`)) return null;
      if (!/import\.meta\.(dirname|filename|url)/.test(code)) return null;
      const rel = path.relative(root, file).split(path.sep).join('/');
      const out = code
        .replaceAll('import.meta.dirname', `__tdSource(${JSON.stringify(path.posix.dirname(rel))})`)
        .replaceAll('import.meta.filename', `__tdSource(${JSON.stringify(rel)})`)
        .replaceAll('import.meta.url', `__tdSourceUrl(${JSON.stringify(rel)})`);
      return { code: out, map: null };
    },
  };
}

const SOURCE_HELPERS = [
  "import { fileURLToPath as __tdToPath, pathToFileURL as __tdToUrl } from 'node:url';",
  "import __tdPath from 'node:path';",
  "const __tdRoot = __tdPath.resolve(__tdPath.dirname(__tdToPath(import.meta.url)), '..', '..');",
  'const __tdSource = (rel) => __tdPath.join(__tdRoot, rel);',
  'const __tdSourceUrl = (rel) => __tdToUrl(__tdSource(rel)).href;',
].join('\n');

export async function buildElectron(root) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const deps = Object.keys(pkg.dependencies ?? {});
  const external = (id) =>
    id === 'electron' || id.startsWith('node:') || builtinModules.includes(id) || deps.some((d) => id === d || id.startsWith(`${d}/`));
  const outDir = path.join(root, 'out', 'electron');
  const common = { configFile: false, root, logLevel: 'warn', publicDir: false };
  await build({
    ...common,
    build: {
      outDir,
      emptyOutDir: true,
      target: 'node22',
      minify: false,
      sourcemap: true,
      ssr: path.join(root, 'main', 'electron', 'main.ts'),
      rollupOptions: { external, output: { format: 'es', entryFileNames: 'main.js', banner: SOURCE_HELPERS } },
    },
    plugins: [sourcePaths(root)],
  });
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
