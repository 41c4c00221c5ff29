/**
 * serve with the core in its own process (startServe without `service`): "today's in-process
 * path", the baseline the service benchmark compares the extra hop (relay + service) with.
 * `node bench/serve-inproc.ts --cwd DIR` prints `serving <url>` like serve does.
 */
import { startServe } from '../main/serve/server.ts';

const cwd = process.argv[process.argv.indexOf('--cwd') + 1] ?? process.cwd();
const served = await startServe({ port: 0, fresh: true, cwd });
process.stdout.write(`serving ${served.url}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void served.close().then(() => process.exit(0)));
