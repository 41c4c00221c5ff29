/**
 * Giving memory back after a flood (issue 11): V8 collects garbage when it allocates, so a
 * service that goes quiet after a flood, or after its panes closed, keeps what the flood
 * grew until something allocates again. The service runs with `--expose-gc` (CORE_V8_FLAGS)
 * and asks for a full collection once output has been quiet for a moment after a lot of it,
 * or after a pane closed; V8 then returns the freed pages to the system.
 */
import type { PaneServiceApi } from '../services.ts';

/** Output since the last collection that makes one worth it once quiet. */
const FLOOD_CHARS = 8 * 1024 * 1024;
/** Quiet for this long: the flood has ended. */
const QUIET_MS = 2_000;

export interface MemoryReturner {
  dispose(): void;
}

/** Collect once output has been quiet for QUIET_MS after FLOOD_CHARS of it, or after a pane closed. No-op without `gc`. */
export function returnMemoryWhenQuiet(panes: Pick<PaneServiceApi, 'onOutput' | 'onRemoved'>, gc: (() => void) | undefined, quietMs = QUIET_MS): MemoryReturner {
  if (!gc) return { dispose() {} };
  let since = 0;
  let due = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!due) return;
      due = false;
      since = 0;
      gc();
    }, quietMs);
    timer.unref();
  };
  const offOutput = panes.onOutput((_id, data) => {
    since += data.length;
    if (since >= FLOOD_CHARS) due = true;
    if (due) arm();
  });
  const offRemoved = panes.onRemoved(() => {
    due = true;
    arm();
  });
  return {
    dispose() {
      clearTimeout(timer);
      offOutput();
      offRemoved();
    },
  };
}
