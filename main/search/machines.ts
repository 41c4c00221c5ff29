/**
 * Search on other machines (docs/design/remote.md): `search.query` with `machine` is asked of
 * that machine's service over its control channel (its own index: its panes' output and
 * agents), and its hits come back with their pane ids qualified (`name/paneId`), as the
 * window knows them; `machine: '*'` asks this machine and every connected one and merges
 * their hits newest first (one that has not answered in 8 s is left out). A qualified `pane`
 * filter goes to its machine the same way.
 */
import type { SearchHit, SearchQuery } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import { qualify, splitPaneId } from '../../common/pane-id.ts';

type Answer = { ok: true; hits: SearchHit[] } | { ok: false; error: string };

/** How long a machine's answer is waited for (a link that hangs without dropping): then it is left out. */
const FAR_MS = 8_000;

/** What of the machines search needs: their names, and a request over one's control channel. */
export interface SearchMachines {
  /** Names of the machines connected now. */
  connected(): string[];
  /** A request to machine `name`'s service; rejects with one sentence when it is unknown or unreachable. */
  ask(name: string, request: string, req: unknown): Promise<unknown>;
}

/** Hits of several machines in one list, newest first, their pane ids qualified (none: this machine). */
export function mergeHits(lists: ReadonlyArray<{ machine?: string; hits: readonly SearchHit[] }>, limit: number): SearchHit[] {
  const all = lists.flatMap((l) => (l.machine ? l.hits.map((h) => ({ ...h, paneId: qualify(l.machine!, h.paneId) })) : [...l.hits]));
  return all.sort((a, b) => b.at - a.at).slice(0, limit);
}

function limitOf(q: SearchQuery): number {
  return Math.max(1, Math.min(500, q.limit ?? 50));
}

export function installSearchOnMachines(core: Core, machines: SearchMachines): void {
  core.around('search.query', async (req, _client, next): Promise<Answer> => {
    let { machine, ...q } = req;
    if (q.pane) {
      const s = splitPaneId(q.pane);
      if (s.machine !== undefined) {
        if (machine && machine !== '*' && machine !== s.machine) return { ok: false, error: `pane ${q.pane} is on ${s.machine}, not on ${machine}: give one of the two` };
        machine = s.machine;
        q = { ...q, pane: s.local };
      }
    }
    if (!machine) return next(q);
    const far = async (name: string): Promise<Answer> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} did not answer the search within ${FAR_MS / 1000} s: try again, or search this machine`)), FAR_MS);
      });
      const r = (await Promise.race([machines.ask(name, 'search.query', q), late]).finally(() => clearTimeout(timer))) as Answer;
      if (!r || typeof r !== 'object' || (r.ok && !Array.isArray(r.hits))) return { ok: false, error: `${name} answered the search with something that is not hits` };
      return r.ok ? { ok: true, hits: mergeHits([{ machine: name, hits: r.hits }], limitOf(q)) } : r;
    };
    if (machine !== '*') {
      try {
        return await far(machine);
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
    }
    // Every machine: this one's, and each connected one's that answers (an unreachable one is left out).
    const answers = await Promise.all([next(q), ...machines.connected().map((m) => far(m).catch((e: Error): Answer => ({ ok: false, error: e.message })))]);
    const home = answers[0]!;
    if (!home.ok) return home;
    return { ok: true, hits: mergeHits(answers.flatMap((a) => (a.ok ? [{ hits: a.hits }] : [])), limitOf(q)) };
  });
}
