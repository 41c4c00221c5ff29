/**
 * The device door's address as a person types it (the command line and the settings): pure,
 * shared by main/devices/ and the renderer.
 */

/** The door's port when none is given. */
export const DEFAULT_PORT = 8443;

/** `HOST[:PORT]` or `[V6]:PORT`: the address and port, or the sentence saying what is wrong. */
export function parseAddress(raw: string, port?: string): { address: string; port: number } | string {
  let address = raw.trim();
  let p: string | undefined = port;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(address);
  if (v6) {
    address = v6[1]!;
    p = v6[2] ?? p;
  } else if (/^[^:]+:\d+$/.test(address)) {
    const i = address.lastIndexOf(':');
    p = address.slice(i + 1);
    address = address.slice(0, i);
  }
  if (p === undefined) return { address, port: DEFAULT_PORT };
  const n = Number(p);
  if (!/^\d+$/.test(p) || n < 1 || n > 65535) return `port "${p}" is not usable: give a whole number from 1 to 65535`;
  return { address, port: n };
}
