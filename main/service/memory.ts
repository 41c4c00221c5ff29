/**
 * Giving memory back after a flood (issue 11): V8 collects garbage when it allocates, so a
 * service that goes quiet after a flood, or after its panes closed, keeps what the flood
 * grew until something allocates again. The service runs with `--expose-gc` (CORE_V8_FLAGS)
 * and, once output has been quiet for a moment after a lot of it, after a pane closed or
 * after a pane's headless screen archived its old scrollback (main/panes/archive.ts),
 * gives memory back (`giveBack`): a full collection that also releases V8's pooled pages,
 * then glibc's `malloc_trim`, which returns the free pages inside the allocator's arenas
 * (a headless screen's lines are each their own malloc'd array, so a closed pane's
 * scrollback leaves holes below memory still in use, which glibc alone never gives back).
 *
 * Every collection asked for here stops the service's loop (V8's `gc`, even with `execution:
 * 'async'`, which only runs it from a task: ~20 ms for the service's heap on 2 busy cores),
 * so none runs while someone types: each waits until input to every pane has been quiet for
 * INPUT_QUIET_MS (a key's echo, the prompt after Ctrl-C, never wait behind one), unless the
 * pane last given input has written FLOODING_CHARS since (the command typed runs a flood:
 * nobody waits for an echo there). V8's own collections, incremental and mostly on its helper
 * threads, go on meanwhile.
 */
import type { PaneServiceApi } from '../services.ts';
import { libc } from '../libc.ts';

/** Output since the last collection that makes one worth it once quiet. */
const FLOOD_CHARS = 8 * 1024 * 1024;
/** Quiet for this long: the flood has ended. */
const QUIET_MS = 2_000;
/**
 * A flood that goes on (or floods one after another, with no quiet between): garbage is
 * collected every this much output, at most once every STEADY_MS (`between`). What the
 * young generation promotes in a flood (the screen's queued lines, its archive's) is garbage
 * soon after, and the old generation grows by it until collected. A 128 MiB flood drawn by a
 * page (bench/peer.bench.ts) peaked ~7 MiB lower at 8 MiB and a second than at 32 MiB and
 * 5 s, and ~3 MiB lower again at 3 MiB and 300 ms (3 rounds each, the same hour: 1.27x idle
 * against 1.31x), the server's CPU for the same cat again within its spread (0.66 CPU-s a
 * cat against 0.64-0.74): 3-4 collections a 32 MiB cat instead of 1-2, each a stop of ~20 ms.
 */
const STEADY_CHARS = 3 * 1024 * 1024;
const STEADY_MS = 300;
/**
 * Input to any pane this recently holds every collection asked for here. With the steady
 * ones, 16 panes of `yes` and keys typed into a quiet pane (bench/service.bench.ts, three runs
 * without them against five with): the quiet pane's echo p99 5.6-8.1 ms against 18.0-26.9.
 */
const INPUT_QUIET_MS = 1_000;
/**
 * After a screen caught up with a flood and archived it, or a window went, memory is given
 * back this much later, whatever the output then (the next command's may follow at once),
 * unless it was given back this recently: a second, so the collection does not compete with
 * the window still drawing the flood's end or with what the person does next.
 */
const COMPACTED_MS = 1_000;
/**
 * A window's attach (every pane's snapshot, the first paint) is over well within this, on a
 * loaded machine too; what it made is given back then (as after a window went), not in the
 * middle of it.
 */
const ATTACHED_MS = 5_000;
/** Another pane that wrote this much in the last FLOODING_MS floods (and the pane given input that wrote this much since: it runs a flood, see the header). */
const FLOODING_CHARS = 256 * 1024;
const FLOODING_MS = 1_000;

export interface MemoryReturner {
  /**
   * Work that made garbage without output (the screens saved, the service's own start): given
   * back a moment later (COMPACTED_MS), as after a window went; nothing else would collect it
   * in a service at rest (V8 collects when it allocates).
   */
  afterWork(): void;
  dispose(): void;
}

/** V8's `gc` as `--expose-gc` gives it; the options object picks the kind of collection. */
export type Gc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;

let trimmer: (() => boolean) | null | undefined;

/**
 * glibc's `malloc_trim(0)` through koffi (main/libc.ts),
 * or null where there is none to call (macOS, Windows, musl): loaded on first use.
 */
export function mallocTrim(): (() => boolean) | null {
  if (trimmer !== undefined) return trimmer;
  trimmer = null;
  if (process.platform !== 'linux') return trimmer;
  try {
    const trim = libc()?.func('int malloc_trim(size_t pad)') as ((pad: number) => number) | undefined;
    if (trim) trimmer = () => trim(0) === 1;
  } catch {
    // Not glibc (musl has no malloc_trim): the collection alone still runs.
  }
  return trimmer;
}

/**
 * A full collection that also shrinks the young generation and releases V8's pooled pages
 * (`last-resort`: a plain one leaves ~30 MiB more after a flood), then the allocator's free pages.
 */
export function giveBack(gc: Gc): void {
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  mallocTrim()?.();
}

/** A collection during output (the flood goes on), from a task rather than inside the output's handler (a full stop all the same); the trim returns what the last one freed. */
export function collectBetween(gc: Gc): void {
  gc({ type: 'major', execution: 'async' });
  mallocTrim()?.();
}

export interface ReturnOptions {
  /** Quiet for this long after a flood: QUIET_MS. */
  quietMs?: number;
  /** A flood that goes on: collected every `steadyChars` of output, at most once every `steadyMs` (STEADY_CHARS, STEADY_MS). */
  steadyChars?: number;
  steadyMs?: number;
  /** After a screen caught up with a flood, or a window went: given back this much later (COMPACTED_MS). */
  afterMs?: number;
  /** After a window came: given back this much later (ATTACHED_MS), once its attach is over. */
  attachedMs?: number;
  /** What gives memory back, and what collects during a flood (giveBack, collectBetween). */
  give?: (gc: Gc) => void;
  between?: (gc: Gc) => void;
  /** Input this recent holds every collection (INPUT_QUIET_MS). */
  inputQuietMs?: number;
  /** The service's windows: when one goes (its buffers and what its snapshots made are garbage). */
  windows?: { onWindows(listener: (windows: number) => void): () => void };
}

/**
 * Give memory back once output has been quiet for QUIET_MS after FLOOD_CHARS of it, after a
 * pane closed, or after a screen archived; a second after a screen caught up with a flood,
 * after a window went, after work that made garbage without output (`afterWork`: the
 * service's start, a round of kept screens), and ATTACHED_MS after a window came (what was
 * due then waits for it), while no other pane floods (the next command's output may follow
 * at once); and, during a flood that goes on, collect every STEADY_CHARS of output at most
 * once every STEADY_MS (`between`); none while someone types (INPUT_QUIET_MS). No-op without `gc`.
 */
export function returnMemoryWhenQuiet(panes: Pick<PaneServiceApi, 'onOutput' | 'onRemoved' | 'onCompacted' | 'onInput'>, gc: Gc | undefined, opts: ReturnOptions = {}): MemoryReturner {
  const quietMs = opts.quietMs ?? QUIET_MS;
  const give = opts.give ?? giveBack;
  const between = opts.between ?? collectBetween;
  const steady = { chars: opts.steadyChars ?? STEADY_CHARS, ms: opts.steadyMs ?? STEADY_MS };
  const afterMs = opts.afterMs ?? COMPACTED_MS;
  const attachedMs = opts.attachedMs ?? ATTACHED_MS;
  const inputQuietMs = opts.inputQuietMs ?? INPUT_QUIET_MS;
  if (!gc) return { afterWork() {}, dispose() {} };
  let since = 0;
  let due = false;
  let timer: NodeJS.Timeout | undefined;
  // A flood that goes on: output since memory was last given back or collected, and when.
  let steadySince = 0;
  let givenAt = -Infinity;
  let turn: NodeJS.Immediate | undefined;
  let afterCatchUp: NodeJS.Timeout | undefined;
  // Each pane's output in the current second: whether another pane floods.
  const recent = new Map<string, { at: number; chars: number }>();
  // The last input to any pane, and what that pane wrote since: every collection waits until
  // it is INPUT_QUIET_MS old, unless its pane has flooded since (a command that runs a flood).
  let inputAt = -Infinity;
  let inputPane: string | undefined;
  let sinceInput = 0;
  /** Milliseconds until input has been quiet long enough for a collection (0: now). */
  const typing = (): number => (sinceInput >= FLOODING_CHARS ? 0 : Math.max(0, inputAt + inputQuietMs - performance.now()));
  const giveNow = (): void => {
    due = false;
    since = 0;
    steadySince = 0;
    givenAt = performance.now();
    give(gc);
  };
  const arm = (): void => {
    clearTimeout(timer);
    const fire = (): void => {
      timer = undefined;
      if (!due) return;
      const wait = typing();
      if (wait === 0) giveNow();
      else (timer = setTimeout(fire, wait)).unref();
    };
    timer = setTimeout(fire, quietMs);
    timer.unref();
  };
  /** Between two reads (not inside this one), unless memory was given back or collected in the last `within` ms. */
  const soon = (within: number, fn: () => void): boolean => {
    if (turn || performance.now() - givenAt < within) return false;
    turn = setImmediate(() => {
      turn = undefined;
      fn();
    });
    return true;
  };
  /** Whether a pane (other than `besides`) wrote FLOODING_CHARS in the current second. */
  const flooding = (besides?: string): boolean => {
    const now = performance.now();
    for (const [id, r] of recent) if (id !== besides && now - r.at < FLOODING_MS && r.chars >= FLOODING_CHARS) return true;
    return false;
  };
  const offOutput = panes.onOutput((id, data) => {
    since += data.length;
    if (id === inputPane) sinceInput += data.length;
    steadySince += data.length;
    const now = performance.now();
    const r = recent.get(id);
    if (!r || now - r.at >= FLOODING_MS) recent.set(id, { at: now, chars: data.length });
    else r.chars += data.length;
    if (since >= FLOOD_CHARS) due = true;
    if (due) arm();
    if (steadySince >= steady.chars && typing() === 0) {
      soon(steady.ms, () => {
        if (typing() > 0) return;
        steadySince = 0;
        givenAt = performance.now();
        between(gc);
      });
    }
  });
  const offInput = panes.onInput((id) => {
    inputAt = performance.now();
    inputPane = id;
    sinceInput = 0;
  });
  const offRemoved = panes.onRemoved((id) => {
    recent.delete(id);
    due = true;
    arm();
  });
  /**
   * Given back `afterMs` from now, whatever the output then (the next command's may follow at
   * once), unless a pane besides `paneId` floods now (a full collection would stall them all,
   * every time one of them pauses long enough to catch up: then once quiet) or it was given
   * back that recently. A pane flooding by then (a window left behind in a flood redraws twice
   * a second, and its screen catches up for each: a full stop after each cost a 128 MiB flood
   * ~0.4 CPU-s) gets a plain collection instead (collectBetween), and the full one once quiet. Input
   * holds it (INPUT_QUIET_MS).
   */
  const giveAfter = (paneId: string): void => {
    due = true;
    arm();
    if (flooding(paneId) || afterCatchUp) return;
    const fire = (): void => {
      afterCatchUp = undefined;
      if (!due || performance.now() - givenAt < afterMs) return;
      const wait = typing();
      if (wait > 0) {
        (afterCatchUp = setTimeout(fire, wait)).unref();
        return;
      }
      if (!flooding()) giveNow();
      else {
        givenAt = performance.now();
        between(gc);
      }
    };
    afterCatchUp = setTimeout(fire, afterMs);
    afterCatchUp.unref();
  };
  // A screen caught up with a flood and archived it: the rows it let go are garbage now.
  const offCompacted = panes.onCompacted(giveAfter);
  // A window went: what it held, and what its snapshots made, are garbage now. A window came:
  // what its attach made (every pane's snapshot) is garbage once it has settled. What was due
  // when it came (a window gone a moment before: a page reloaded) waits for that too: a full
  // stop during its attach would hold its hello and snapshots (issue 38, item 4).
  let windowsBefore = 0;
  let attached: NodeJS.Timeout | undefined;
  const offWindows = opts.windows?.onWindows((n) => {
    if (n < windowsBefore) giveAfter('');
    else if (n > windowsBefore) {
      clearTimeout(afterCatchUp);
      afterCatchUp = undefined;
      if (due) {
        clearTimeout(timer);
        timer = undefined;
      }
      clearTimeout(attached);
      (attached = setTimeout(() => giveAfter(''), attachedMs)).unref();
    }
    windowsBefore = n;
  });
  return {
    afterWork: () => giveAfter(''),
    dispose() {
      clearTimeout(timer);
      clearTimeout(afterCatchUp);
      clearTimeout(attached);
      if (turn) clearImmediate(turn);
      offOutput();
      offInput();
      offRemoved();
      offCompacted();
      offWindows?.();
    },
  };
}
