/**
 * `node --experimental-strip-types main/serve/main.ts [--port N] [--host H] [--fresh]
 * [--cwd DIR] [--no-open] [--service-socket PATH --service-token FILE]` (also
 * `terminal-delight serve`). The browser's door to the per-user service (started on demand):
 * prints exactly one line to stdout when ready, `serving http://127.0.0.1:<port>/?token=<token>`
 * (it listens, and the service answers or is starting: holds its lock while its core loads);
 * everything else goes to stderr, and a service that does not come up after all ends serve
 * with exit code 1. SIGINT/SIGTERM stop serve only: the service and every
 * pane keep running (docs/design/service.md). `--service-socket` and `--service-token`
 * reach a service elsewhere, such as one on another machine through an SSH-forwarded socket.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startServe } from './server.ts';

export const USAGE = 'usage: serve [--port N] [--host 127.0.0.1|::1|localhost] [--fresh] [--cwd DIR] [--no-open] [--service-socket PATH --service-token FILE]';

export interface ServeArgs {
  port: number;
  host: string;
  fresh: boolean;
  cwd?: string;
  open: boolean;
  serviceSocket?: string;
  serviceToken?: string;
}

/** Parse serve's arguments; throws one sentence on anything wrong. */
export function parseServeArgs(argv: string[]): ServeArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        fresh: { type: 'boolean' },
        cwd: { type: 'string' },
        'no-open': { type: 'boolean' },
        open: { type: 'boolean' },
        'service-socket': { type: 'string' },
        'service-token': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new Error(`${(err as Error).message.split('\n')[0].replace(/\.$/, '')}; ${USAGE}`);
  }
  const portText = (values.port as string | undefined) ?? '0';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new Error(`--port ${portText} is not a port: give a number from 0 to 65535 (0 picks a free one)`);
  const cwd = values.cwd as string | undefined;
  if (cwd !== undefined) {
    let ok = false;
    try {
      ok = fs.statSync(cwd).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) throw new Error(`--cwd ${cwd} is not a folder: give an existing folder for the first pane`);
  }
  const serviceSocket = values['service-socket'] as string | undefined;
  const serviceToken = values['service-token'] as string | undefined;
  if ((serviceSocket === undefined) !== (serviceToken === undefined)) throw new Error('--service-socket and --service-token go together: give both (the forwarded socket and a copy of that service\'s run/service.token)');
  return {
    ...(serviceSocket ? { serviceSocket: path.resolve(serviceSocket), serviceToken: path.resolve(serviceToken!) } : {}),
    port: Number(portText),
    host: (values.host as string | undefined) ?? '127.0.0.1',
    fresh: values.fresh === true,
    cwd: cwd === undefined ? undefined : path.resolve(cwd),
    open: values['no-open'] !== true,
  };
}

/** Open a URL in the desktop's browser, quietly doing nothing where there is none. */
function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  try {
    const child = spawn(cmd, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no browser opener: the printed URL is enough
  }
}

export async function run(argv: string[]): Promise<number> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv);
  } catch (err) {
    process.stderr.write(`serve: ${(err as Error).message}\n`);
    return 2;
  }
  let served;
  try {
    served = await startServe({
      port: args.port, host: args.host, fresh: args.fresh, cwd: args.cwd ?? process.cwd(),
      service: args.serviceSocket ? { socketPath: args.serviceSocket, tokenFile: args.serviceToken } : true,
    });
  } catch (err) {
    process.stderr.write(`serve: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`serving ${served.url}\n`);
  if (args.open) openBrowser(served.url);
  return new Promise<number>((resolve) => {
    // The service was starting when the URL went out, and did not come up after all.
    served.service.catch((err: Error) => {
      process.stderr.write(`serve: ${err.message}\n`);
      void served.close().finally(() => resolve(1));
    });
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`serve: ${signal}, shutting down\n`);
      const force = setTimeout(() => resolve(0), 5000);
      force.unref();
      served.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGHUP', () => stop('SIGHUP'));
  });
}

/** Run as the process's entry: this file under Node, or the bundle (scripts/serve-entry.mjs). */
export function main(): void {
  run(process.argv.slice(2)).then((code) => process.exit(code));
}

const invoked = process.argv[1] ? pathToFileURL(path.resolve(process.argv[1])).href : '';
if (invoked === import.meta.url) main();
