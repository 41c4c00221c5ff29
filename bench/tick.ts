/** The Tick host benchmark, by the name the issue gives it; `npm run bench` runs bench/tick.bench.ts. */
export { benchTick } from './tick.bench.ts';
