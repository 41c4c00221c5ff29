/**
 * The serve shell's checks, pure: loopback hosts only, a Host header naming this
 * server (against DNS rebinding), a same-origin WebSocket, and the token from the
 * query or the cookie. Also the Content-Security-Policy the renderer is served with.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cookieValue } from '../../common/cookies.ts';
import { tokensEqual } from '../tokens.ts';

export { cookieValue, tokensEqual };

export const COOKIE = 'td_token';

/** 32 random bytes, hex. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** The address to bind for a --host value, or undefined when it is not loopback. */
export function loopbackBindAddress(host: string): '127.0.0.1' | '::1' | undefined {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === '127.0.0.1' || h === 'localhost') return '127.0.0.1';
  if (h === '::1') return '::1';
  return undefined;
}

/** The Host header values this server answers to. */
/** The URL serve prints: the address it listens on, its port, and the token (traded for a cookie at the first load). */
export function serveUrl(bind: '127.0.0.1' | '::1', port: number, token: string): string {
  return `http://${bind === '::1' ? '[::1]' : '127.0.0.1'}:${port}/?token=${token}`;
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return typeof host === 'string' && allowedHosts(port).includes(host.toLowerCase());
}

/** The WebSocket's Origin must be this very origin (the scheme and the Host it was sent to). */
export function originAllowed(origin: string | undefined, host: string | undefined, port: number): boolean {
  if (!origin || !hostAllowed(host, port)) return false;
  return origin.toLowerCase() === `http://${host!.toLowerCase()}`;
}

/** The td_token cookie's value from a Cookie header. */
export function cookieToken(cookieHeader: string | undefined): string | undefined {
  return cookieValue(cookieHeader, COOKIE);
}

export function setCookie(token: string): string {
  return `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/**
 * The CSP sources of the inline scripts of a page the renderer's build made (`'sha256-…'`, one
 * per `<script>` without `src`): index.html carries renderer/early.ts inline (vite.config.ts,
 * `inlineEarly`), so it runs as the page is parsed. Read from the built file only, never from
 * the page as sent (with a first paint in it): nothing a pane prints can become an allowed
 * script. Memoized by the file's text. Pure.
 */
export function inlineScriptHashes(html: string): string[] {
  const known = hashMemo.get(html);
  if (known) return known;
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(m[1]!) || !m[2]) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2], 'utf8').digest('base64')}'`);
  }
  if (hashMemo.size >= 8) hashMemo.clear();
  hashMemo.set(html, hashes);
  return hashes;
}
const hashMemo = new Map<string, string[]>();

/** A policy whose `script-src 'self'` also allows these inline scripts (`inlineScriptHashes`). */
export function withScriptHashes(csp: string, hashes: readonly string[]): string {
  return hashes.length ? csp.replace("script-src 'self'", `script-src 'self' ${hashes.join(' ')}`) : csp;
}

/** The renderer's policy: only our own scripts (the built page's inline ones added by `withScriptHashes`), our own socket, blob/self frames. */
export function rendererCsp(port: number): string {
  // CSP source lists cannot name an IPv6 literal; 'self' covers a same-origin socket on [::1].
  const ws = [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${ws}`,
    "frame-src 'self' blob:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
