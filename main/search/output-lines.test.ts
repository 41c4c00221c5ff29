/** SearchIndex.outputLines: a pane's output around a line, as indexed (blocks of BLOCK_LINES lines read back). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { BLOCK_LINES, SearchIndex, type Entry } from './index.ts';

let state: ReturnType<typeof tempState>;
beforeEach(() => {
  state = tempState('td-search-');
});
afterEach(() => state.cleanup());

describe('SearchIndex.outputLines', () => {
  it('gives a pane\'s lines from..to across blocks, numbered as printed, and no other pane\'s or kind\'s', () => {
    const ix = new SearchIndex(state.dir);
    const out = (paneId: string, line: number): Entry => ({ kind: 'output', at: 1, paneId, session: 's', line, text: `${paneId} line ${line}` });
    ix.add([
      ...Array.from({ length: 3 * BLOCK_LINES }, (_, i) => out('pa', i)),
      { kind: 'command', at: 2, paneId: 'pa', session: 's', line: 70, text: 'not output' },
      ...Array.from({ length: 10 }, (_, i) => out('pb', i + 60)),
    ]);
    const got = ix.outputLines('pa', BLOCK_LINES - 2, BLOCK_LINES + 1);
    expect(got).toEqual([0, 1, 2, 3].map((k) => ({ line: BLOCK_LINES - 2 + k, text: `pa line ${BLOCK_LINES - 2 + k}` })));
    expect(ix.outputLines('pa', 3 * BLOCK_LINES - 1, 3 * BLOCK_LINES + 40).map((l) => l.line)).toEqual([3 * BLOCK_LINES - 1]);
    expect(ix.outputLines('pc', 0, 100)).toEqual([]);
    ix.close();
  });
});
