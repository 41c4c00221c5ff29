/**
 * The device door's certificate: the person's own (`tailscale cert`, mkcert), or one the
 * app makes (ECDSA P-256, for the door's address, 90 days) and keeps in the state folder,
 * shown by its SHA-256 fingerprint.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

export interface CertPair {
  cert: string;
  key: string;
  /** SHA-256 of the certificate (DER), as AB:CD:… */
  fingerprint: string;
  /** The DNS names it is for (its Host headers are allowed too). */
  names: string[];
  made: boolean;
}

const MADE_DAYS = 90;
/** A made certificate this close to its end is made again. */
const RENEW_MS = 7 * 24 * 3600_000;

function namesOf(x: X509Certificate): string[] {
  return (x.subjectAltName ?? '').split(',').map((s) => s.trim()).filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4).toLowerCase());
}

/** A supplied certificate and key, read and checked; a string says what is wrong. */
export function readSupplied(certFile: string, keyFile: string, address: string): CertPair | string {
  let cert: string;
  let key: string;
  try {
    cert = fs.readFileSync(certFile, 'utf8');
  } catch (e) {
    return `the certificate ${certFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give the path of a PEM file`;
  }
  try {
    key = fs.readFileSync(keyFile, 'utf8');
  } catch (e) {
    return `the key ${keyFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give the path of a PEM file`;
  }
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch {
    return `${certFile} is not a PEM certificate: give the certificate (for example fullchain.pem), not the key`;
  }
  if (Date.parse(x.validTo) < Date.now()) return `the certificate ${certFile} expired on ${x.validTo}: renew it, then turn the door on again`;
  try {
    tls.createSecureContext({ cert, key });
  } catch {
    return `the key ${keyFile} does not belong to the certificate ${certFile} (or is not a PEM private key): give the key the certificate was made for`;
  }
  const covers = net.isIP(address) ? x.checkIP(address) !== undefined : x.checkHost(address) !== undefined;
  if (!covers && namesOf(x).length === 0) return `the certificate ${certFile} is not for ${address} and names no host: give one made for this address or this machine's name`;
  return { cert, key, fingerprint: x.fingerprint256, names: namesOf(x), made: false };
}

/** The app's own certificate for `address`, made (or made again) when missing, for another address, or near its end. */
export async function madeCert(dir: string, address: string, now = new Date()): Promise<CertPair> {
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  try {
    const cert = fs.readFileSync(certFile, 'utf8');
    const key = fs.readFileSync(keyFile, 'utf8');
    const x = new X509Certificate(cert);
    const covers = net.isIP(address) ? x.checkIP(address) !== undefined : x.checkHost(address) !== undefined;
    if (covers && Date.parse(x.validTo) - now.getTime() > RENEW_MS) return { cert, key, fingerprint: x.fingerprint256, names: namesOf(x), made: true };
  } catch {
    // none yet, or unreadable: make one
  }
  const { generate } = await import('selfsigned');
  const host = os.hostname().toLowerCase();
  const altNames: Array<{ type: 2 | 7; value?: string; ip?: string }> = net.isIP(address) ? [{ type: 7, ip: address }] : [{ type: 2, value: address }];
  if (host && host !== address) altNames.push({ type: 2, value: host });
  const pems = await generate([{ name: 'commonName', value: `Terminal Delight on ${host || 'this machine'}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + MADE_DAYS * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600);
  fs.writeFileSync(certFile, pems.cert, { mode: 0o600 });
  const x = new X509Certificate(pems.cert);
  return { cert: pems.cert, key: pems.private, fingerprint: x.fingerprint256, names: namesOf(x), made: true };
}
