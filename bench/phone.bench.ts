/**
 * The phone (issue 34), on loopback with a real service in this process:
 * - a card's arrival (the surface ingested) to the push request reaching a local HTTPS push
 *   endpoint (encrypted, VAPID-signed); baseline: web-push alone sending the same-sized
 *   payload to the same endpoint (its encryption, signing and HTTPS: the floor).
 *   Goal: p99 under 500 ms.
 * - the phone's tap (POST /api/act over HTTPS, a kept-alive connection, as a phone keeps
 *   one) to the line's echo in the pane's output; baseline: the desktop's click (the
 *   surface.act request into the core) to the same echo. Goal: p99 under 300 ms.
 * p50 and p99 of 60 runs each, after 5 of warm-up.
 */
import { createECDH, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { LOGIN_BASH, tempState, waitFor } from '../main/panes/testing.ts';
import { SUBMIT_DELAY_MS } from '../main/panes/service.ts';
import { foregroundGroup } from '../main/panes/proc.ts';
import { startService } from '../main/service/service.ts';
import { benchLog } from './log.ts';

const RUNS = 60;
const WARM = 5;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const { lines, log } = benchLog('phone');
  const state = tempState('td-bench-phone-');
  const started = await startService({ env: state.env, fresh: true, idleMs: 0 });
  if (!started.started) throw new Error('the service did not start');
  const svc = started.service;
  const app = svc.app;
  const W = { id: 'bench-window' };
  // The push service: HTTPS on loopback, answering 201 and telling who waits.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'push.bench' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }] });
  let arrived: ((t: number) => void) | undefined;
  const endpoint = https.createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    const t = performance.now();
    req.resume();
    req.on('end', () => {
      res.writeHead(201);
      res.end();
    });
    arrived?.(t);
  });
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
  const endpointUrl = `https://127.0.0.1:${(endpoint.address() as { port: number }).port}/push/bench`;
  const agent = new https.Agent({ ca: pems.cert, keepAlive: true });
  app.devices.pushes.agent = agent;
  try {
    const on = await app.core.request('devices.enable', { address: '127.0.0.1', port: 0 }, W);
    if (!on.ok) throw new Error(on.error);
    const port = on.state.port!;
    const ca = fs.readFileSync(path.join(svc.paths.state, 'devices', 'cert.pem'), 'utf8');
    const phoneAgent = new https.Agent({ ca, keepAlive: true, maxSockets: 1 });
    const post = (p: string, body: unknown, cookie?: string): Promise<{ headers: Record<string, unknown>; body: Record<string, unknown> }> => new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: p, method: 'POST', agent: phoneAgent, servername: '', headers: { Host: `127.0.0.1:${port}`, Origin: `https://127.0.0.1:${port}`, 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve({ headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    const pairing = await app.core.request('devices.pair', {}, W);
    if (!pairing.ok) throw new Error(pairing.error);
    const paired = await post('/api/pair', { code: pairing.pairing.code, name: 'bench phone' });
    const cookie = String(paired.headers['set-cookie']).split(';')[0]!;
    const ua = createECDH('prime256v1');
    ua.generateKeys();
    const sub = { endpoint: endpointUrl, keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
    await post('/api/push/subscribe', sub, cookie);

    const pane = app.panes.create({ command: LOGIN_BASH, cwd: state.dir });
    app.panes.write(pane.id, 'cat > /dev/null\r');
    await waitFor(() => {
      const g = foregroundGroup(app.panes.pid(pane.id)!);
      try {
        return g && fs.readFileSync(`/proc/${g}/comm`, 'utf8').trim() === 'cat';
      } catch {
        return false;
      }
    }, 'cat reading in the pane', 20_000);

    // 1. A card's arrival to the push request at the push service.
    const pushMs: number[] = [];
    for (let i = 0; i < WARM + RUNS; i++) {
      const id = `push-${i}`;
      const got = new Promise<number>((r) => (arrived = r));
      const t0 = performance.now();
      app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id, title: 'Which port?', model: { question: `Which port for run ${i}?`, options: [{ name: '8080' }, { name: '9090' }] } }, 'file');
      const t1 = await got;
      if (i >= WARM) pushMs.push(t1 - t0);
      // Retired: its withdrawal goes out too; wait for it before the next card.
      const gone = new Promise<number>((r) => (arrived = r));
      app.surfaces.ingest(pane.id, { td: '0.4', op: 'retire', id }, 'file');
      await gone;
    }
    const webpush = (await import('web-push')).default;
    const vapid = await app.devices.pushes.vapid();
    const floorMs: number[] = [];
    const samplePayload = JSON.stringify({ t: 'card', tag: 'x'.repeat(32), title: 'bash: Which port?', body: 'Which port for run 10?', kind: 'question', actions: [{ action: 'a0', title: '8080', token: 'x'.repeat(22) }, { action: 'a1', title: '9090', token: 'x'.repeat(22) }] });
    for (let i = 0; i < WARM + RUNS; i++) {
      const got = new Promise<number>((r) => (arrived = r));
      const t0 = performance.now();
      await webpush.sendNotification(sub, samplePayload, { vapidDetails: { subject: 'mailto:bench@localhost.localdomain', ...vapid }, TTL: 3600, agent });
      const t1 = await got;
      if (i >= WARM) floorMs.push(t1 - t0);
    }
    arrived = undefined;
    log(`card arrival → push request at the push service: p50 ${pct(pushMs, 50).toFixed(1)} ms, p99 ${pct(pushMs, 99).toFixed(1)} ms (goal: under 500 ms); web-push alone: p50 ${pct(floorMs, 50).toFixed(1)} ms, p99 ${pct(floorMs, 99).toFixed(1)} ms; ratio of p50s ${(pct(pushMs, 50) / pct(floorMs, 50)).toFixed(2)}x`);

    // 2. The phone's tap to the line's echo in the pane, and the desktop's click to the same.
    const echoed = (needle: string): Promise<number> => new Promise((resolve) => {
      let seen = '';
      const off = app.panes.onOutput((id, data) => {
        if (id !== pane.id) return;
        seen = (seen + data).slice(-4096);
        if (seen.includes(needle)) {
          off();
          resolve(performance.now());
        }
      });
    });
    const tapMs: number[] = [];
    const clickMs: number[] = [];
    for (let i = 0; i < WARM + RUNS; i++) {
      for (const who of ['phone', 'desk'] as const) {
        const id = `tap-${who}-${i}`;
        app.surfaces.ingest(pane.id, { td: '0.4', kind: 'decision', id, title: 'Pick', model: { question: 'A or B?', options: [{ name: 'A' }, { name: 'B' }] } }, 'file');
        await waitFor(async () => app.surfaces.list(pane.id).some((s) => s.id === id), 'the card');
        const echo = echoed(`on surface ${id} ·`);
        const t0 = performance.now();
        const r = who === 'phone'
          ? (await post('/api/act', { paneId: pane.id, surfaceId: id, action: 'choose', target: 'B' }, cookie)).body
          : await app.core.request('surface.act', { paneId: pane.id, surfaceId: id, action: 'choose', target: 'B' }, W);
        if (r.ok !== true) throw new Error(`the ${who}'s answer was refused: ${JSON.stringify(r)}`);
        const t1 = await echo;
        if (i >= WARM) (who === 'phone' ? tapMs : clickMs).push(t1 - t0);
        // Each answer on an idle pane, as a person's are: a line is typed as a person types it
        // (its return a moment later, PaneService.submit), and an answer sent meanwhile waits its
        // turn behind it (back to back, every answer measured ~400 ms of that pacing).
        await new Promise((r) => setTimeout(r, 2 * SUBMIT_DELAY_MS + 50));
      }
    }
    log(`phone's tap → line in the pane: p50 ${pct(tapMs, 50).toFixed(1)} ms, p99 ${pct(tapMs, 99).toFixed(1)} ms (goal: under 300 ms); desktop click (surface.act) → line: p50 ${pct(clickMs, 50).toFixed(1)} ms, p99 ${pct(clickMs, 99).toFixed(1)} ms; ratio of p50s ${(pct(tapMs, 50) / pct(clickMs, 50)).toFixed(2)}x`);
    log(`${RUNS} runs each after ${WARM} of warm-up, loopback, one service in this process`);
    phoneAgent.destroy();
    return { name: 'phone: card → push, tap → line', lines };
  } finally {
    agent.destroy();
    endpoint.closeAllConnections();
    endpoint.close();
    await svc.stop('bench over');
    state.cleanup();
  }
}
