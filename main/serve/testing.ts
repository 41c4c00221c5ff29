/** Test helpers for serve's HTTP side. */
import http from 'node:http';
import { statePaths } from '../paths.ts';
import { readLock } from '../service/lock.ts';

/** The pid in the service's lock under `env`'s state folder, if one is written. */
export function lockedServicePid(env: NodeJS.ProcessEnv): number | undefined {
  const rec = readLock(statePaths(env).serviceLock);
  return rec && rec !== 'empty' ? rec.pid : undefined;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP GET (or HEAD) with full control of Host and Cookie (fetch would not let us set Host). */
export function get(port: number, pathName: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathName, method, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
