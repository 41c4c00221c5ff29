// Bundles one of the core's Node entry points into a single ES module under out/, with
// node_modules dependencies (node-pty, electron...) left external and shipped beside it:
// the Electron main (scripts/build-electron.mjs) and the service (scripts/build.mjs), which
// then start without Node's type stripping.
import { builtinModules, createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Modules find files beside their sources (`import.meta.dirname`, `import.meta.url`),
 * for example the Tick launcher. In one bundle those would all point at out/<name>/,
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

/** Whether the file a package resolves to (with require's conditions) is CommonJS. */
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) return JSON.parse(fs.readFileSync(pj, 'utf8')).type !== 'module';
  }
  return true;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set('break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval'.split(' '));

/**
 * A dependency that is CommonJS, imported by the core with `import`, is loaded with
 * `require` in the bundle (a module of its exports: the default is module.exports, each
 * exported name beside it, as Node's own import of CommonJS gives them). Node holds a
 * CommonJS module's source twice in V8's heap when ESM imports it and once when it is
 * required: ~0.5 MiB of the resting service's heap for @xterm/headless and ajv.
 */
function requireCommonJs(root, isDependency) {
  const req = createRequire(path.join(root, 'package.json'));
  const PREFIX = '\0td-require:';
  // What Node's `import` of the package loads is CommonJS (a package with an ES module of its
  // own, or both, is left to Node: zod and the MCP SDK must stay one copy, the SDK's).
  // (scripts/ is a folder below the root: import.meta.resolve finds the root's node_modules.)
  const commonJs = (id) => {
    if (!isDependency(id)) return false;
    try {
      const imported = fileURLToPath(import.meta.resolve(id));
      return isCommonJs(imported) && imported === req.resolve(id);
    } catch {
      return false;
    }
  };
  return {
    commonJs,
    plugin: {
      name: 'td-require-commonjs',
      enforce: 'pre',
      resolveId(id) {
        return commonJs(id) ? PREFIX + id : null;
      },
      load(id) {
        if (!id.startsWith(PREFIX)) return null;
        const spec = id.slice(PREFIX.length);
        const names = Object.keys(req(spec)).filter((n) => IDENTIFIER.test(n) && !RESERVED.has(n) && n !== '__esModule');
        return [
          "import { createRequire as __tdCreateRequire } from 'node:module';",
          `const m = __tdCreateRequire(import.meta.url)(${JSON.stringify(spec)});`,
          'export default m;',
          ...(names.length ? [`export const { ${names.join(', ')} } = m;`] : []),
        ].join('\n');
      },
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

/**
 * `entry` (relative to root) bundled to out/<folder>/<file> as ESM. `emptyOutDir` clears the
 * folder first. The bundle must sit two folders below the root (see sourcePaths).
 */
export async function bundleMain(root, { entry, folder, file, emptyOutDir = true }) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const deps = Object.keys(pkg.dependencies ?? {});
  const isDependency = (id) => deps.some((d) => id === d || id.startsWith(`${d}/`));
  const cjs = requireCommonJs(root, isDependency);
  // (A CommonJS dependency is not external here: requireCommonJs makes the module that requires it.)
  const external = (id) => id === 'electron' || id.startsWith('node:') || builtinModules.includes(id) || (isDependency(id) && !cjs.commonJs(id));
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir: path.join(root, 'out', folder),
      emptyOutDir,
      target: 'node22',
      minify: false,
      sourcemap: true,
      ssr: path.join(root, entry),
      // Chunks (a dynamic import, such as serve's in-process core) sit beside the entry: the
      // banner finds the app root two folders above whichever file it is in.
      // A module's source stays in V8's heap as long as the process runs (functions are compiled
      // from it when first called), and a source with one character beyond Latin-1 (a dash in a
      // comment) is held as two bytes a character: characters are escaped to ASCII and the doc
      // comments left out (legal ones kept), so the service's core chunk is held in 0.5 MiB
      // of heap instead of 1.3 (the sourcemap still points at the sources).
      rollupOptions: {
        external,
        output: { format: 'es', entryFileNames: file, chunkFileNames: '[name]-[hash].mjs', banner: SOURCE_HELPERS, charset: 'ascii', comments: { legal: true, annotation: true, jsdoc: false } },
      },
    },
    plugins: [sourcePaths(root), cjs.plugin],
  });
}

/** The files of the last build in a bundle's folder (each build's chunks have names of their own). */
const MANIFEST = '.build.json';

/**
 * What to delete from a bundle's folder after a build: everything that is neither this
 * build's nor the previous one's. The previous build's chunks stay until the next build,
 * so a process that loaded the previous entry a moment ago still finds the chunk it loads
 * next (the service takes its lock, then imports its core). Pure.
 */
export function staleFiles(present, previous, current) {
  const keep = new Set([...previous, ...current, MANIFEST]);
  return present.filter((f) => !keep.has(f));
}

/**
 * `entry` bundled to out/<name>/<name>.mjs: built beside it, its chunks moved in, then the
 * entry renamed over the old one, so a process starting meanwhile never finds half a file.
 */
async function buildSwapped(root, name, entry) {
  const next = path.join(root, 'out', `${name}.next-${process.pid}`);
  const out = path.join(root, 'out', name);
  const file = `${name}.mjs`;
  try {
    await bundleMain(root, { entry, folder: path.basename(next), file });
    fs.mkdirSync(out, { recursive: true });
    let previous = [];
    try {
      previous = JSON.parse(fs.readFileSync(path.join(out, MANIFEST), 'utf8')).files ?? [];
    } catch {
      // the first build here, or one from before the manifest
    }
    const built = fs.readdirSync(next);
    // The entry (and its map) last: until it is renamed in, the old entry and its chunks are whole.
    const last = [`${file}.map`, file];
    for (const f of [...built.filter((f) => !last.includes(f)), ...last.filter((f) => built.includes(f))]) fs.renameSync(path.join(next, f), path.join(out, f));
    for (const f of staleFiles(fs.readdirSync(out), previous, built)) fs.rmSync(path.join(out, f), { recursive: true, force: true });
    fs.writeFileSync(path.join(out, MANIFEST), JSON.stringify({ files: built }) + '\n');
  } finally {
    fs.rmSync(next, { recursive: true, force: true });
  }
}

/** The service's bundle: out/service/service.mjs (main/service/client.ts starts it when it is current). */
export function buildService(root) {
  return buildSwapped(root, 'service', 'scripts/service-entry.mjs');
}

/**
 * serve's bundle: out/serve/serve.mjs, the relay (main/serve/main.ts), which `npm start`
 * and `terminal-delight serve` run when it is current instead of type-stripping the sources.
 */
export function buildServe(root) {
  return buildSwapped(root, 'serve', 'scripts/serve-entry.mjs');
}
