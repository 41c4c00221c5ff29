/**
 * What the Electron shell's `app://td/...` protocol answers, without Electron: the
 * core's file routes first (core.serveFiles), then the built renderer; and whether an
 * IPC sender is one of our own pages. Plain Node, so it is tested directly.
 */
import path from 'node:path';
import type { ResolvedFile } from '../core.ts';
import { firstPaintWithin, withAnswer, type FirstPaintAnswer } from '../door/first-paint.ts';
import { mimeType, resolveStatic } from '../door/files.ts';
import { inlineScriptHashes, withScriptHashes } from '../door/security.ts';

export const SCHEME = 'app';
export const ORIGIN = `${SCHEME}://td`;

/** The renderer's policy under app:// (the same rules as serve's). */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export type AppRoute = { file: string; type: string; csp: string } | { status: number; text: string };

/** The core's file routes (core.serveFiles), reached through the service. */
export type FileRoutes = (prefix: string, rest: string) => ResolvedFile | undefined | Promise<ResolvedFile | undefined>;

export async function routeAppUrl(rawUrl: string, files: FileRoutes | undefined, rendererDir: string): Promise<AppRoute> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { status: 400, text: 'Bad request.' };
  }
  if (url.protocol !== `${SCHEME}:` || url.host !== 'td') return { status: 404, text: 'Not found.' };
  const m = /^\/([a-z][a-z0-9-]*)\/(.+)$/.exec(url.pathname);
  if (m && files) {
    let rest: string | undefined;
    try {
      rest = decodeURIComponent(m[2]);
    } catch {
      rest = undefined;
    }
    const resolved = rest !== undefined && !rest.includes('\0') ? await files(m[1], rest) : undefined;
    if (resolved) return { file: resolved.path, type: resolved.type ?? mimeType(resolved.path), csp: resolved.csp ?? APP_CSP };
  }
  const file = resolveStatic(rendererDir, url.pathname);
  if (!file) return url.pathname === '/' || url.pathname === '/index.html' ? { status: 404, text: 'The renderer is not built yet: run `npm run build`.' } : { status: 404, text: 'Not found.' };
  return { file, type: mimeType(file), csp: APP_CSP };
}

/**
 * A window's background before its page paints, in each theme: the page's own `--bg`
 * (renderer/theme.css), so a window opens in the colour its first frame has.
 */
export const WINDOW_BACKGROUND: Record<'light' | 'dark', string> = { dark: '#0e1013', light: '#e7e7e4' };

/**
 * The policy `file` is sent with: the renderer's index.html also allows its own inline scripts
 * (the early script, vite.config.ts), hashed from `body` as built (before the first paint goes in).
 */
export function appCspFor(file: string, body: Buffer, rendererDir: string, csp: string): string {
  if (path.resolve(file) !== path.resolve(rendererDir, 'index.html')) return csp;
  return withScriptHashes(csp, inlineScriptHashes(body.toString('utf8')));
}

/**
 * The window's page with its theme and first paint in it (main/door/first-paint.ts), when
 * `file` is the renderer's index.html and the service gave one in time; else `body` as it is.
 */
export async function withAppFirstPaint(file: string, body: Buffer<ArrayBuffer>, rendererDir: string, answer: () => Promise<FirstPaintAnswer | undefined>): Promise<Buffer<ArrayBuffer>> {
  if (path.resolve(file) !== path.resolve(rendererDir, 'index.html')) return body;
  const a = await firstPaintWithin(answer().catch(() => undefined));
  return a ? Buffer.from(withAnswer(body.toString('utf8'), a)) : body;
}

/**
 * Only the renderer's own page may call the core over IPC: app://td/ or
 * app://td/index.html. Other app:// pages (an artifact served under /artifact/, a
 * stray asset) are refused even though they share the origin's scheme and host.
 */
export function trustedSenderUrl(url: string | undefined | null): boolean {
  if (typeof url !== 'string') return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.protocol === `${SCHEME}:` && u.host === 'td' && !u.username && !u.password && (u.pathname === '/' || u.pathname === '/index.html');
}
