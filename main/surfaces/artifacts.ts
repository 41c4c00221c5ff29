/**
 * `open` on an artifact: routed to the viewer (contract 'artifact.open'), never typed.
 * Markdown comes back as text; HTML and images as same-origin URLs served under
 * `/artifact/<paneId>/<surfaceId>/<name>` (HTML with a sandboxing CSP); anything else
 * is handed to the desktop (a download URL and a message); http(s) addresses are
 * external; a local file that is not there is `missing`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ArtifactView, Surface } from '../../preload/contract.ts';
import type { ResolvedFile } from '../core.ts';

export const ARTIFACT_PREFIX = 'artifact';
export const HTML_CSP = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";
/** Markdown read for the viewer, at most. */
const MARKDOWN_BYTES = 4 * 1024 * 1024;

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.webp': 'image/webp', '.svg': 'image/svg+xml', '.avif': 'image/avif', '.bmp': 'image/bmp', '.ico': 'image/x-icon',
};

type Sort = 'markdown' | 'html' | 'image' | 'other';

function sortOf(file: string, mediaType: unknown): Sort {
  const mt = typeof mediaType === 'string' ? mediaType.toLowerCase().split(';')[0]!.trim() : '';
  if (mt === 'text/markdown' || mt === 'text/x-markdown') return 'markdown';
  if (mt === 'text/html' || mt === 'application/xhtml+xml') return 'html';
  if (mt.startsWith('image/')) return 'image';
  const ext = path.extname(file).toLowerCase();
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  if (ext === '.html' || ext === '.htm') return 'html';
  if (IMAGE_TYPES[ext]) return 'image';
  return 'other';
}

/** The local path an artifact's location names, or undefined for web addresses. */
export function localPath(location: string): string | undefined {
  if (location.startsWith('/')) return location;
  if (location.startsWith('file:')) {
    try {
      return fileURLToPath(location);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function artifactUrl(paneId: string, surfaceId: string, name: string): string {
  return `/${ARTIFACT_PREFIX}/${encodeURIComponent(paneId)}/${encodeURIComponent(surfaceId)}/${encodeURIComponent(name)}`;
}

/** How the viewer shows an artifact surface. */
export function artifactView(paneId: string, surface: Surface): ArtifactView {
  const location = typeof surface.model.location === 'string' ? surface.model.location : '';
  if (surface.kind !== 'artifact' || !location) {
    return { kind: 'missing', name: surface.title, message: `surface "${surface.id}" is not an artifact — only artifacts open in the viewer` };
  }
  if (/^https?:/i.test(location)) {
    return { kind: 'external', name: location, url: location, message: 'a web address: it opens in your browser' };
  }
  const file = localPath(location);
  const name = file ? path.basename(file) : location;
  if (!file) return { kind: 'missing', name, message: `${location} is not a local file — send an absolute path or a file:// address` };
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile()) return { kind: 'missing', name, message: `${file} is not there (any more) — ask the agent to write it again` };
  const url = artifactUrl(paneId, surface.id, name);
  switch (sortOf(file, surface.model.media_type)) {
    case 'markdown': {
      if (st.size > MARKDOWN_BYTES) return { kind: 'external', name, url, message: `${name} is ${Math.ceil(st.size / 1024 / 1024)} MiB — too big for the viewer; download it instead` };
      return { kind: 'markdown', name, text: fs.readFileSync(file, 'utf8') };
    }
    case 'html':
      return { kind: 'html', name, url };
    case 'image':
      return { kind: 'image', name, url };
    default:
      return { kind: 'external', name, url, message: `${name} is not Markdown, HTML or an image — download it to open it with another program` };
  }
}

/**
 * The resolver for `core.serveFiles('artifact', …)`: `<paneId>/<surfaceId>/<name>` to
 * the artifact's file, only when that surface is an artifact naming that very file.
 */
export function artifactResolver(lookup: (paneId: string, surfaceId: string) => Surface | undefined): (rest: string) => ResolvedFile | undefined {
  return (rest) => {
    const parts = rest.split('/');
    if (parts.length !== 3) return undefined;
    let paneId: string, surfaceId: string, name: string;
    try {
      [paneId, surfaceId, name] = parts.map((p) => decodeURIComponent(p)) as [string, string, string];
    } catch {
      return undefined;
    }
    const surface = lookup(paneId, surfaceId);
    if (!surface || surface.kind !== 'artifact' || typeof surface.model.location !== 'string') return undefined;
    const file = localPath(surface.model.location);
    if (!file || path.basename(file) !== name) return undefined;
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile()) return undefined;
    const sort = sortOf(file, surface.model.media_type);
    const ext = path.extname(file).toLowerCase();
    if (sort === 'html') return { path: file, type: 'text/html; charset=utf-8', csp: HTML_CSP };
    if (sort === 'image') return { path: file, type: IMAGE_TYPES[ext] ?? imageType(surface.model.media_type), csp: HTML_CSP };
    if (sort === 'markdown') return { path: file, type: 'text/markdown; charset=utf-8', csp: HTML_CSP };
    return { path: file, type: 'application/octet-stream', csp: HTML_CSP };
  };
}

/** An agent's image media type as a header value: a plain `image/<subtype>` token, or octet-stream (never line breaks). */
function imageType(mediaType: unknown): string {
  const mt = typeof mediaType === 'string' ? mediaType.trim().toLowerCase() : '';
  return /^image\/[a-z0-9][a-z0-9.+-]{0,100}$/.test(mt) ? mt : 'application/octet-stream';
}
