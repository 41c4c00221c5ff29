/** The Tick host as createApp installs it: contract requests, events, MCP tools, disposal. */
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { InstanceInfo } from '../../preload/contract.ts';
import { type App, createApp } from '../app.ts';
import { tempState } from '../panes/testing.ts';

const COUNTER = path.resolve(import.meta.dirname, '..', '..', 'assets', 'ticks', 'counter', 'counter.mjs');
let app: App | undefined;
let state: ReturnType<typeof tempState> | undefined;

afterEach(async () => {
  await app?.dispose();
  state?.cleanup();
});

it('createApp installs the Tick host: tick.open, tick.list, tick.close, events and the five MCP tools', async () => {
  state = tempState('td-tickapp-');
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
  expect(app.mcp.toolNames()).toEqual(expect.arrayContaining(['TickManage', 'TickDescribe', 'TickRead', 'TickCall', 'TickUpdate']));
  const changes: InstanceInfo[] = [];
  app.core.onEvent((name, payload) => {
    if (name === 'tick.changed') changes.push(payload as InstanceInfo);
  });
  const client = { id: 'window' };
  const r = await app.core.request('tick.open', { command: [process.execPath, COUNTER], cwd: state.dir }, client);
  expect(r).toMatchObject({ ok: true, instance: { kind: 'example.counter', title: 'Counter', status: 'ready' } });
  if (!r.ok) return;
  expect(app.panes.get(r.paneId)).toMatchObject({ kind: 'tick', instanceId: r.instance.id });
  expect(await app.core.request('tick.list', {}, client)).toContainEqual(expect.objectContaining({ id: r.instance.id, status: 'ready' }));
  expect(changes.map((c) => c.status)).toEqual(['starting', 'ready']);
  expect(await app.core.request('approval.list', {}, client)).toEqual([]);
  await app.core.request('tick.close', { instanceId: r.instance.id }, client);
  expect(changes.at(-1)).toMatchObject({ id: r.instance.id, status: 'ended', reason: 'closed' });
  await expect(app.core.request('tick.close', { instanceId: r.instance.id }, client)).rejects.toThrow(/no hosted instance/);
});
