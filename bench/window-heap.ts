/**
 * Loaded into the serve process under test (NODE_OPTIONS=--import=…) by the window
 * benchmark: every 100 ms it writes the largest size V8's young generation (new space)
 * and old space have reached to the file named by TD_BENCH_HEAP_LOG, as JSON. This is
 * how the benchmark tells V8's own heap sizing apart from memory our code holds.
 */
import fs from 'node:fs';
import v8 from 'node:v8';

const file = process.env.TD_BENCH_HEAP_LOG;
if (file) {
  const max: Record<string, number> = {};
  const first: Record<string, number> = {};
  const timer = setInterval(() => {
    for (const s of v8.getHeapSpaceStatistics()) {
      if (s.space_name !== 'new_space' && s.space_name !== 'old_space') continue;
      first[s.space_name] ??= s.space_size;
      max[s.space_name] = Math.max(max[s.space_name] ?? 0, s.space_size);
    }
    fs.writeFileSync(file, JSON.stringify({ first, max }));
  }, 100);
  timer.unref();
}
