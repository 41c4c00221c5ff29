// Builds the renderer (renderer/index.html + renderer/main.tsx, and the phone's page renderer/phone.html) into out/renderer.
// Relative base './' so the page loads the same from serve's HTTP root and from
// Electron's app:// protocol. One inline script, the early one (inlineEarly), allowed by its hash in both shells' strict CSP.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Plugin } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));
const version = String(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version);

/**
 * renderer/early.ts, built apart as a classic script and put inline, first in the built
 * index.html: it runs as the page is parsed and opens the window's socket then, while the
 * scripts still download and parse. As an async module script of its own (until 2026-12-05) it
 * ran 55-350 ms after navigation, often only just before the main module; as an async classic
 * file, once fetched, which the page's other assets delayed by up to 150 ms (docs/spec/performance.md).
 * Both shells' CSP allow it by its hash, read from the built file (main/door/security.ts,
 * `inlineScriptHashes`). The main bundle imports early.ts too (takeEarly, takeTyped); that copy
 * finds what this one left on `globalThis.__tdEarly` and starts nothing.
 */
function inlineEarly(): Plugin {
  let code: string | undefined;
  return {
    name: 'td-inline-early',
    apply: 'build',
    async buildStart() {
      const out = (await build({
        configFile: false,
        logLevel: 'warn',
        root,
        build: {
          write: false,
          target: 'es2023',
          sourcemap: false,
          minify: true,
          emptyOutDir: false,
          copyPublicDir: false,
          rollupOptions: { input: path.join(root, 'renderer', 'early.ts'), output: { format: 'iife', entryFileNames: 'early.js' } },
        },
      })) as BuildOutput | BuildOutput[];
      const output = (Array.isArray(out) ? out[0]! : out).output;
      code = output.find((o) => o.type === 'chunk')!.code!.trim();
      // Inline in HTML: nothing in it may end the script element or open a comment.
      if (/<\/script|<!--/i.test(code)) throw new Error('renderer/early.ts built to text that cannot go inline in index.html');
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        // The window's page only: the phone's page (phone.html) opens no window socket.
        if (!code || !ctx.filename.endsWith('index.html')) return html;
        return { html, tags: [{ tag: 'script', children: code, injectTo: 'head-prepend' }] };
      },
    },
  };
}

/**
 * The libraries the window needs before its first frame (React and xterm with the addons it
 * loads at once), bundled apart into one classic script, `assets/vendor-<hash>.js`, that sets
 * `globalThis.__tdVendor`; in the app's build each of these names is a small module reading
 * its exports from there. Why: Chromium keeps V8's code cache for a classic script and reads
 * it from the third load on (its parse then skipped, and the functions it ran already
 * compiled), but never reads one for a module script (docs/spec/performance.md, "A window
 * attaching, in order"). Only the exact names are swapped: '@xterm/xterm/css/xterm.css' still
 * resolves. A name the app imports that the library does not export fails the build.
 */
const VENDORED = ['react', 'react-dom', 'react-dom/client', 'react/jsx-runtime', '@xterm/xterm', '@xterm/addon-fit', '@xterm/addon-unicode11', '@xterm/addon-web-links'] as const;
const VENDOR_GLOBAL = '__tdVendor';
const SHIM = '\0td-vendor:';

/** A module's export names, as Node sees them (a UMD module's are its default's keys). */
async function exportNames(name: string): Promise<string[]> {
  const ns = (await import(createRequire(path.join(root, 'package.json')).resolve(name))) as Record<string, unknown>;
  const names = new Set(Object.keys(ns));
  const dflt = ns.default;
  if (dflt && typeof dflt === 'object') for (const k of Object.keys(dflt)) names.add(k);
  return [...names].filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n)).sort();
}

type BuildOutput = { output: Array<{ type: string; fileName: string; code?: string; source?: string | Uint8Array }> };

function classicVendor(): Plugin {
  let fileName: string | undefined;
  const shims = new Map<string, string>();
  return {
    name: 'td-classic-vendor',
    apply: 'build',
    enforce: 'pre',
    async buildStart() {
      const entry = '\0td-vendor-entry';
      const out = (await build({
        configFile: false,
        logLevel: 'warn',
        root,
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        plugins: [
          {
            name: 'td-vendor-entry',
            resolveId: (id) => (id === entry ? id : null),
            load: (id) =>
              id === entry
                ? VENDORED.map((n, i) => `import * as m${i} from ${JSON.stringify(n)};`).join('\n') +
                  `\nglobalThis.${VENDOR_GLOBAL} = {${VENDORED.map((n, i) => `${JSON.stringify(n)}: m${i}`).join(', ')}};\n`
                : null,
          },
        ],
        build: {
          write: false,
          target: 'es2023',
          sourcemap: true,
          minify: true,
          emptyOutDir: false,
          copyPublicDir: false,
          rollupOptions: { input: entry, output: { format: 'iife', entryFileNames: 'vendor.js' } },
        },
      })) as BuildOutput | BuildOutput[];
      const output = (Array.isArray(out) ? out[0]! : out).output;
      const code = output.find((o) => o.type === 'chunk')!.code!;
      const map = output.find((o) => o.fileName.endsWith('.map'))?.source;
      // Named by its content, as vite names the other assets (served immutable).
      const hash = createHash('sha256').update(code).digest('base64url').slice(0, 8);
      fileName = `assets/vendor-${hash}.js`;
      this.emitFile({ type: 'asset', fileName, source: code.replace(/\/\/# sourceMappingURL=\S+\s*$/, '') + `//# sourceMappingURL=vendor-${hash}.js.map\n` });
      if (map) this.emitFile({ type: 'asset', fileName: `${fileName}.map`, source: map });
      for (const name of VENDORED) {
        const names = await exportNames(name);
        shims.set(
          name,
          `const m = globalThis.${VENDOR_GLOBAL}[${JSON.stringify(name)}];\n` +
            `export default ('default' in m ? m.default : m);\n` +
            names.map((n) => `export const ${n} = m.${n};`).join('\n') + '\n',
        );
      }
    },
    resolveId(id) {
      return (VENDORED as readonly string[]).includes(id) ? SHIM + id : null;
    },
    load(id) {
      return id.startsWith(SHIM) ? shims.get(id.slice(SHIM.length)) : null;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        if (!fileName) return html;
        // defer: run after the HTML is parsed, before the module scripts that follow it (one
        // ordered list); it is fetched and compiled meanwhile, from its code cache once there is one.
        // Electron loads the file as built; the door serves it inert and preloaded, and the page's
        // first script starts it once the early socket has opened (common/first-paint.ts
        // withScriptsLater, renderer/early.ts startScripts), in the same order.
        return { html, tags: [{ tag: 'script', attrs: { defer: true, src: `./${fileName}` }, injectTo: 'head-prepend' }] };
      },
    },
  };
}

export default defineConfig({
  root: path.join(root, 'renderer'),
  base: './',
  plugins: [react(), inlineEarly(), classicVendor()],
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
    rollupOptions: { input: { index: path.join(root, 'renderer', 'index.html'), phone: path.join(root, 'renderer', 'phone.html') } },
  },
});
