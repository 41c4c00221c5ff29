/**
 * What the device door keeps in the state folder's `devices/` (0700): `door.json` (the
 * door is on, where, with whose certificate), `devices.json` (each paired device: its
 * name, when it was paired and last seen, and only the SHA-256 of its credential), and the
 * certificate the app made (`cert.pem`, `key.pem`, 0600). Written atomically.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readJson, writeJsonAtomic } from '../state/files.ts';
import { sanitize } from '../surfaces/actions.ts';

export interface DoorConfig {
  address: string;
  port: number;
  /** A certificate and key the person supplied (absolute paths); absent: the app's own. */
  cert?: string;
  key?: string;
}

/** A device's Web Push subscription (what PushSubscription.toJSON() gives). */
export interface PushSubscriptionRecord {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** What a device is notified of, and when not (quiet hours, the service's local time, HH:MM). */
export interface NotifySettings {
  needsYou: boolean;
  done: boolean;
  failed: boolean;
  quiet: { from: string; to: string } | null;
}

export const DEFAULT_NOTIFY: NotifySettings = { needsYou: true, done: false, failed: false, quiet: null };

export interface DeviceRecord {
  id: string;
  name: string;
  /** SHA-256 (hex) of the device's credential; the credential itself is never kept. */
  hash: string;
  pairedAt: string;
  lastSeen?: string;
  /** Whether the device may type into a terminal (off by default; no way to turn it on yet). */
  canType: boolean;
  /** Its push subscription, once it subscribed; it goes with the record. */
  push?: PushSubscriptionRecord;
  /** What it is notified of (DEFAULT_NOTIFY until it chose). */
  notify?: NotifySettings;
}

export function credentialHash(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

/** A new credential: 256 random bits, base64url. */
export function newCredential(): string {
  return randomBytes(32).toString('base64url');
}

/** A name as a device may give it: one line of printable text, at most 60 characters. */
export function cleanName(raw: unknown): string {
  const s = typeof raw === 'string' ? sanitize(raw).replace(/\s+/g, ' ').trim() : '';
  return s.slice(0, 60) || 'A device';
}

export class DeviceStore {
  readonly dir: string;
  private devices: DeviceRecord[];

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'devices');
    const raw = readJson(path.join(this.dir, 'devices.json')) as { devices?: unknown } | undefined;
    this.devices = Array.isArray(raw?.devices) ? (raw.devices as DeviceRecord[]).filter((d) => d && typeof d.hash === 'string' && typeof d.name === 'string') : [];
  }

  ensureDir(): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700);
  }

  door(): DoorConfig | undefined {
    const c = readJson(path.join(this.dir, 'door.json')) as DoorConfig | undefined;
    return c && typeof c.address === 'string' && Number.isInteger(c.port) ? c : undefined;
  }

  setDoor(config: DoorConfig | undefined): void {
    this.ensureDir();
    if (config) writeJsonAtomic(path.join(this.dir, 'door.json'), config);
    else fs.rmSync(path.join(this.dir, 'door.json'), { force: true });
  }

  list(): DeviceRecord[] {
    return this.devices.map((d) => ({ ...d }));
  }

  byHash(hash: string): DeviceRecord | undefined {
    return this.devices.find((d) => d.hash === hash);
  }

  /** A new device with this name (made unique: "Pixel (2)"); returns it and its credential. */
  add(name: string, now: Date): { device: DeviceRecord; credential: string } {
    const base = cleanName(name);
    let unique = base;
    for (let n = 2; this.devices.some((d) => d.name.toLowerCase() === unique.toLowerCase()); n++) unique = `${base} (${n})`;
    const credential = newCredential();
    const device: DeviceRecord = { id: randomBytes(6).toString('hex'), name: unique, hash: credentialHash(credential), pairedAt: now.toISOString(), canType: false };
    this.devices.push(device);
    this.save();
    return { device: { ...device }, credential };
  }

  /** The device named `name` (case does not matter), removed; undefined when there is none. */
  remove(name: string): DeviceRecord | undefined {
    const found = this.byName(name);
    const i = found ? this.devices.indexOf(found) : -1;
    if (i < 0) return undefined;
    const [gone] = this.devices.splice(i, 1);
    this.save();
    return gone;
  }

  /** Keep (or drop) a device's push subscription. */
  setPush(hash: string, sub: PushSubscriptionRecord | undefined): void {
    const d = this.byHash(hash);
    if (!d) return;
    if (sub) d.push = sub;
    else delete d.push;
    this.save();
  }

  /** The device named `name` (case does not matter, or its id). */
  byName(name: string): DeviceRecord | undefined {
    return this.devices.find((d) => d.name.toLowerCase() === name.trim().toLowerCase() || d.id === name.trim());
  }

  setCanType(hash: string, canType: boolean): void {
    const d = this.byHash(hash);
    if (!d) return;
    d.canType = canType;
    this.save();
  }

  setNotify(hash: string, notify: NotifySettings): void {
    const d = this.byHash(hash);
    if (!d) return;
    d.notify = notify;
    this.save();
  }

  /** Note that a device was seen (saved at most once a minute per device). */
  seen(hash: string, now: Date): void {
    const d = this.byHash(hash);
    if (!d) return;
    const before = d.lastSeen ? Date.parse(d.lastSeen) : 0;
    d.lastSeen = now.toISOString();
    if (now.getTime() - before >= 60_000) this.save();
  }

  private save(): void {
    this.ensureDir();
    writeJsonAtomic(path.join(this.dir, 'devices.json'), { v: 1, devices: this.devices });
  }
}
