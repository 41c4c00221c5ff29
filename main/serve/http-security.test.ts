/**
 * Security of serve over HTTP. The token redirect never leaves this server. The /artifact/ route with the real surface resolver: only the file
 * an artifact surface names, under its own name; no way out through `..`, encoded
 * separators or a second decoding; every answer with the sandboxing CSP; and an agent's
 * hostile media_type (line breaks, header injection) never reaches a response header
 * nor takes serve down. A real serve, real files, raw HTTP.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTML_CSP } from '../surfaces/artifacts.ts';
import { tempState } from '../panes/testing.ts';
import { startServe, type Served } from './server.ts';

let state: ReturnType<typeof tempState>;
let served: Served;
let paneId: string;
let cookie: string;

function get(pathName: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: served.port, path: pathName, method: 'GET', headers: { Host: `127.0.0.1:${served.port}`, Cookie: cookie, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer to ${pathName} in 15 s`)));
    req.end();
  });
}

function artifact(id: string, model: Record<string, unknown>): void {
  const r = served.app.surfaces.ingest(paneId, { td: '0.4', kind: 'artifact', id, model }, 'file');
  expect(r, id).toMatchObject({ surface: { id } });
}

beforeAll(async () => {
  state = tempState();
  served = await startServe({ port: 0, fresh: true, cwd: state.dir, env: state.env, rendererDir: path.join(state.dir, 'no-renderer') });
  paneId = served.app.panes.create({ cwd: state.dir }).id;
  cookie = `td_token=${served.token}`;
  fs.writeFileSync(path.join(state.dir, 'secret.txt'), 'top secret');
  fs.writeFileSync(path.join(state.dir, 'page.html'), '<p>untrusted page</p>');
  fs.writeFileSync(path.join(state.dir, 'blob.dat'), 'data bytes');
});

afterAll(async () => {
  await served?.close();
  state?.cleanup();
});

describe('/artifact/ in serve', () => {
  it('serves the named file with the sandbox CSP, and nothing else however the path is spelled', async () => {
    artifact('page', { location: path.join(state.dir, 'page.html') });
    const ok = await get(`/artifact/${paneId}/page/page.html`);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('untrusted page');
    expect(ok.headers['content-security-policy']).toBe(HTML_CSP);
    expect(ok.headers['content-security-policy']).toMatch(/^sandbox allow-scripts;/);
    expect(ok.headers['content-security-policy']).not.toMatch(/allow-same-origin/);
    for (const p of [
      `/artifact/${paneId}/page/../secret.txt`,
      `/artifact/${paneId}/page/..%2fsecret.txt`,
      `/artifact/${paneId}/page/%2e%2e%2fsecret.txt`,
      `/artifact/${paneId}/page/%252e%252e%252fsecret.txt`,
      `/artifact/${paneId}/page/secret.txt`,
      `/artifact/${paneId}/page/page.html%00.txt`,
      `/artifact/${paneId}/page/page.html/..%2f..%2fsecret.txt`,
      `/artifact/${paneId}/nope/page.html`,
      `/artifact/p-none/page/page.html`,
    ]) {
      const r = await get(p);
      expect(r.status, p).not.toBe(200);
      expect(r.body, p).not.toContain('top secret');
    }
    expect((await get(`/artifact/${paneId}/page/page.html`, { Cookie: '' })).status).toBe(403);
    expect((await get(`/artifact/${paneId}/page/page.html`, { Host: `evil.example:${served.port}` })).status).toBe(403);
  });

  it('never puts an agent\'s media_type with line breaks into a header, and stays up', async () => {
    artifact('evil', { location: path.join(state.dir, 'blob.dat'), media_type: 'image/png\r\nSet-Cookie: td_token=attacker' });
    const r = await get(`/artifact/${paneId}/evil/blob.dat`);
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(String(r.headers['content-type'])).not.toMatch(/[\r\n]/);
    expect(r.headers['content-security-policy']).toBe(HTML_CSP);
    // serve still answers
    artifact('page2', { location: path.join(state.dir, 'page.html') });
    expect((await get(`/artifact/${paneId}/page2/page.html`)).status).toBe(200);
  });
});

describe('the token redirect', () => {
  it('stays on this server however the path is spelled (no protocol-relative Location)', async () => {
    for (const p of ['/.//evil.example/', '/a/..//evil.example/x', '//evil.example/']) {
      const r = await get(`${p}?token=${served.token}`, { Cookie: '' });
      expect(r.status, p).toBe(302);
      expect(String(r.headers.location), p).toMatch(/^\/(?!\/)/);
      expect(String(r.headers.location), p).not.toContain('token=');
    }
  });
});
