/**
 * `terminal-delight devices on|off|list|pair|revoke`: the device door from the command
 * line (docs/design/remote.md), the same requests the settings use.
 *   on --address HOST[:PORT] [--port N] [--cert FILE --key FILE] [--all-interfaces]
 *   off; list; pair (shows the QR code in the terminal and waits until a device pairs,
 *   the pairing ends, or Ctrl-C ends it); revoke NAME.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { DevicesState, Events, Req, RequestName, Res } from '../../preload/contract.ts';
import { parseAddress } from '../../common/device-address.ts';

export { parseAddress };

export const USAGE = 'usage: terminal-delight devices on|off|list|pair|revoke';

const HELP: Record<string, string> = {
  on: 'usage: terminal-delight devices on --address ADDRESS[:PORT] [--port N] [--cert FILE --key FILE] [--all-interfaces]\n  Open the device door (HTTPS) on one address of this machine (a LAN or tailnet address, or 127.0.0.1 for a tunnel of your own),\n  port 8443 unless given. Without --cert and --key the app makes a certificate and shows its SHA-256 fingerprint.\n  0.0.0.0 (every network) only with --all-interfaces.\n',
  off: 'usage: terminal-delight devices off\n  Close the device door (paired devices stay paired; their sockets close).\n',
  list: 'usage: terminal-delight devices list\n  The door (on or off, its URL and fingerprint) and each paired device: name, paired at, last seen.\n',
  pair: 'usage: terminal-delight devices pair\n  Open a pairing: prints a QR code and a one-time code (good for 5 minutes, 5 wrong tries), and waits until a device pairs. Ctrl-C ends it.\n',
  revoke: 'usage: terminal-delight devices revoke NAME\n  Forget the device named NAME: its credential stops working and its connections close at once.\n',
};

export interface Conn {
  request<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>>;
  onEvent<K extends keyof Events>(name: K, fn: (payload: Events[K]) => void): () => void;
}

export interface Io {
  out(s: string): void;
  err(s: string): void;
  cwd: string;
}

function describe(s: DevicesState): string {
  let out = s.on ? `on: ${s.url}\n  certificate SHA-256 ${s.fingerprint}${s.certMade ? ' (made by the app: a phone warns until you check this fingerprint; push needs a trusted certificate)' : ''}\n` : 'off\n';
  if (s.problem) out += `  not open: ${s.problem}\n`;
  if (s.devices.length === 0) out += 'no devices paired\n';
  for (const d of s.devices) out += `  ${d.name}  paired ${d.pairedAt}  last seen ${d.lastSeen ?? 'never'}${d.connected ? `  (${d.connected} connected)` : ''}\n`;
  return out;
}

/** Runs `devices …` with the given connection (made on demand); returns the exit code. */
export async function runDevices(argv: string[], connect: () => Promise<Conn & { close(): void }>, io: Io, qrText: (text: string) => Promise<string>, interrupted: Promise<void> = new Promise(() => undefined)): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { address: { type: 'string' }, port: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' }, 'all-interfaces': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (err) {
    io.err(`devices: ${(err as Error).message.split('\n')[0]}; ${USAGE}\n`);
    return 2;
  }
  const [verb, ...rest] = parsed.positionals;
  const v = parsed.values;
  if (v.help || verb === 'help') {
    io.out(verb && HELP[verb] ? HELP[verb] : `${USAGE}\n${Object.values(HELP).map((h) => '  ' + h.split('\n')[0]!.replace('usage: terminal-delight devices ', '')).join('\n')}\n`);
    return 0;
  }
  if (!verb || !HELP[verb]) {
    io.err(verb ? `devices: "${verb}" is not a devices command; ${USAGE}\n` : `${USAGE}\n`);
    return 2;
  }
  if (verb === 'revoke' ? rest.length !== 1 : rest.length !== 0) {
    io.err(verb === 'revoke' ? 'devices: revoke takes one device name (terminal-delight devices list shows them)\n' : `devices: ${verb} takes no names; ${HELP[verb]!.split('\n')[0]}\n`);
    return 2;
  }
  let enable: Req<'devices.enable'> | undefined;
  if (verb === 'on') {
    if (!v.address) {
      io.err('devices: on needs --address: one address of this machine (a LAN or tailnet address; 127.0.0.1 for a tunnel of your own)\n');
      return 2;
    }
    const a = parseAddress(v.address, v.port);
    if (typeof a === 'string') {
      io.err(`devices: ${a}\n`);
      return 2;
    }
    if ((v.cert === undefined) !== (v.key === undefined)) {
      io.err('devices: give both --cert and --key, or neither for a certificate the app makes\n');
      return 2;
    }
    enable = { address: a.address, port: a.port, ...(v.cert ? { cert: path.resolve(io.cwd, v.cert), key: path.resolve(io.cwd, v.key!) } : {}), ...(v['all-interfaces'] ? { allInterfaces: true } : {}) };
  }
  const conn = await connect();
  try {
    switch (verb) {
      case 'on': {
        const r = await conn.request('devices.enable', enable!);
        if (!r.ok) {
          io.err(`devices: ${r.error}\n`);
          return 1;
        }
        io.out(describe(r.state));
        return 0;
      }
      case 'off':
        io.out(describe(await conn.request('devices.disable', {})));
        return 0;
      case 'list':
        io.out(describe(await conn.request('devices.state', {})));
        return 0;
      case 'revoke': {
        const r = await conn.request('devices.revoke', { name: rest[0]! });
        if (!r.ok) {
          io.err(`devices: ${r.error}\n`);
          return 1;
        }
        io.out(`revoked ${rest[0]}: its connections were closed\n`);
        return 0;
      }
      case 'pair': {
        const ended = new Promise<DevicesState>((resolve) => conn.onEvent('devices.changed', (s) => {
          if (s.pairing && !s.pairing.open) resolve(s);
        }));
        const r = await conn.request('devices.pair', {});
        if (!r.ok) {
          io.err(`devices: ${r.error}\n`);
          return 1;
        }
        const p = r.pairing;
        io.out(`${await qrText(p.url)}\nScan this with the phone's camera, or open ${p.url.replace(/#.*$/, '')} and type the code:\n\n    ${p.code.slice(0, 4)} ${p.code.slice(4)}\n\nCertificate SHA-256: ${p.fingerprint}\nGood until ${p.expiresAt} (5 wrong tries end it). Waiting for a device; Ctrl-C ends the pairing.\n`);
        const s = await Promise.race([ended, interrupted.then(() => undefined)]);
        if (!s) {
          io.err('devices: the pairing was ended\n');
          return 130;
        }
        if (s.pairing?.paired) {
          io.out(`paired: ${s.pairing.paired}\n`);
          return 0;
        }
        io.err(`devices: the pairing ended: ${s.pairing?.ended ?? 'closed'}\n`);
        return 1;
      }
    }
    return 2;
  } catch (e) {
    io.err(`devices: ${(e as Error).message}\n`);
    return 1;
  } finally {
    conn.close();
  }
}

export async function run(argv: string[]): Promise<number> {
  const io: Io = { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s), cwd: process.cwd() };
  return runDevices(argv, async () => {
    const { connectService } = await import('../service/client.ts');
    return connectService({ client: 'cli', cwd: io.cwd });
  }, io, async (text) => {
    const QR = await import('qrcode');
    return QR.toString(text, { type: 'utf8', errorCorrectionLevel: 'M', margin: 2 });
  }, new Promise<void>((resolve) => process.once('SIGINT', () => resolve())));
}
