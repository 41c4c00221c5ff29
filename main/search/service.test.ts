/**
 * The search service's word that it has caught up with a flood (onDrained), which the
 * service uses to give back what indexing it made (main/service/memory.ts).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { afterLines } from './service.ts';
import { tempState, waitFor } from '../panes/testing.ts';

let state: ReturnType<typeof tempState>;
let app: App | undefined;

beforeEach(() => {
  state = tempState();
});
afterEach(async () => {
  await app?.dispose();
  app = undefined;
  state.cleanup();
});

it('says once it has indexed all of a flood that took more than one slice, and what it indexed is found', async () => {
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir });
  // A pane no window reads (a window that never acknowledged output would hold the flood).
  const id = app.panes.create({ cwd: state.dir }).id;
  let drained = 0;
  app.search.onDrained(() => drained++);
  // ~1 MB of output, 40,000 lines: many of the indexer's slices (2,048 lines each).
  app.panes.write(id, 'seq -f "line %g of the flood" 1 40000; echo flood-$((6*7))-done\r');
  await waitFor(() => app!.panes.screenText(id).includes('flood-42-done'), 'the flood', 60_000);
  await waitFor(() => drained > 0, 'the index to catch up', 60_000);
  const r = app.search.query({ query: '39999' });
  const hit = r.ok ? r.hits.find((h) => h.text.includes('line 39999 of the flood')) : undefined;
  expect(hit?.line).toBeGreaterThan(0);
  // How far above the pane's last line it is (Enter's jump tells copies of a line apart by it):
  // 40000, flood-42-done, then the prompt's line, the pane's next.
  const around = app.search.lines({ paneId: id, line: hit!.line! });
  expect(around.ok && around.next - hit!.line!).toBe(3);
  expect(around.ok && around.lines.find((l) => l.line === hit!.line)?.text).toBe('line 39999 of the flood');
}, 120_000);

it('cuts a chunk of output after the last line a slice takes (afterLines)', () => {
  expect(afterLines('a\nb\nc\n', 2)).toEqual({ end: 4, lines: 2 });
  expect(afterLines('a\nb\nc', 5)).toEqual({ end: 5, lines: 2 });
  expect(afterLines('no line feed', 1)).toEqual({ end: 12, lines: 0 });
  expect(afterLines('\n\n', 1)).toEqual({ end: 1, lines: 1 });
});
