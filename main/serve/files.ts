/** Static files for the shells: the built renderer, with MIME types and no way out of its folder. */
import fs from 'node:fs';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.pdf': 'application/pdf',
};

export function mimeType(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file under `root` that a URL path names (index.html for a folder), or undefined
 * when there is none or the path tries to leave `root`.
 */
export function resolveStatic(root: string, urlPath: string): string | undefined {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (rel.includes('\0')) return undefined;
  const full = path.resolve(root, '.' + path.posix.normalize('/' + rel));
  if (full !== root && !full.startsWith(root + path.sep)) return undefined;
  try {
    // A symlink inside the folder must not lead out of it either.
    const realRoot = fs.realpathSync(root);
    const inside = (p: string): boolean => {
      const real = fs.realpathSync(p);
      return real === realRoot || real.startsWith(realRoot + path.sep);
    };
    if (!inside(full)) return undefined;
    const st = fs.statSync(full);
    if (st.isDirectory()) {
      const index = path.join(full, 'index.html');
      return fs.existsSync(index) && inside(index) ? index : undefined;
    }
    return st.isFile() ? full : undefined;
  } catch {
    return undefined;
  }
}
