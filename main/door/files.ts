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

/**
 * Whether a URL path names one of the renderer's built assets, whose names carry a hash of
 * their content (vite's `assets/<name>-<hash>.<ext>`): the same name is always the same
 * bytes, so a browser may keep it for good and need not ask again.
 */
export function isHashedAsset(urlPath: string): boolean {
  return /^\/assets\/[A-Za-z0-9._-]+-[A-Za-z0-9_-]{8}\.[A-Za-z0-9.]+$/.test(urlPath);
}

/** A file to send: its bytes, its media type, and whether its name says its content (cache it for good). */
export interface StaticFile {
  body: Buffer;
  type: string;
  immutable: boolean;
}

/**
 * The renderer's files as a window asks for them: hashed assets read once and kept in memory
 * (their content cannot change under the same name; at most `limit` bytes kept, larger ones
 * and the rest read each time), everything else (index.html, icon.svg) read at each request.
 * Which file a path names is always resolveStatic's answer: nothing outside `root`.
 */
export class RendererFiles {
  private readonly kept = new Map<string, Promise<StaticFile | undefined>>();
  private keptBytes = 0;
  private readonly root: string;
  private readonly limit: number;

  constructor(root: string, limit = 32 * 1024 * 1024) {
    this.root = root;
    this.limit = limit;
  }

  get(urlPath: string): Promise<StaticFile | undefined> {
    const kept = this.kept.get(urlPath);
    if (kept) return kept;
    const file = resolveStatic(this.root, urlPath);
    if (!file) return Promise.resolve(undefined);
    const immutable = isHashedAsset(urlPath);
    const read = fs.promises.readFile(file).then(
      (body): StaticFile => ({ body, type: mimeType(file), immutable }),
      () => undefined,
    );
    if (!immutable) return read;
    this.kept.set(urlPath, read);
    void read.then((f) => {
      // Not kept: unreadable, or over what memory may hold (read again next time).
      if (!f || this.keptBytes + f.body.length > this.limit) this.kept.delete(urlPath);
      else this.keptBytes += f.body.length;
    });
    return read;
  }
}
