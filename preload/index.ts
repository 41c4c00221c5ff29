/**
 * The Electron preload (sandboxed, context-isolated): exposes `window.td` (TdApi) and
 * nothing else, for contract names only. Requests go over ipcRenderer.invoke on
 * `td:<name>` and come back as {ok, res} or {ok: false, error}; events arrive on
 * `td:evt:<name>`.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { EventName, Events, RequestName, Req, Res, TdApi } from './contract.ts';
import { EVENT_NAMES, REQUEST_NAMES } from './contract.ts';

type Envelope = { ok: true; res: unknown } | { ok: false; error: string };

const td: TdApi = {
  async invoke<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
    if (!REQUEST_NAMES.includes(name)) throw new Error(`unknown request "${String(name)}"`);
    const reply = (await ipcRenderer.invoke(`td:${name}`, req)) as Envelope;
    if (!reply.ok) throw new Error(reply.error);
    return reply.res as Res<K>;
  },
  on<K extends EventName>(name: K, handler: (payload: Events[K]) => void): () => void {
    if (!EVENT_NAMES.includes(name)) throw new Error(`unknown event "${String(name)}"`);
    const channel = `td:evt:${name}`;
    const listener = (_event: IpcRendererEvent, payload: Events[K]): void => handler(payload);
    ipcRenderer.on(channel, listener);
    return () => {
      ipcRenderer.removeListener(channel, listener);
    };
  },
};

contextBridge.exposeInMainWorld('td', td);
