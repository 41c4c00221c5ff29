#!/usr/bin/env node
// Puts OpenCode's other platform packages back into package-lock.json after an `npm
// install` on a machine whose registry answers 404 for them (these build machines):
// npm leaves them out of the lock, and `npm ci` then refuses the lock as out of sync.
// Each entry carries its os, cpu and libc and is optional, so npm skips it elsewhere.
// Run it after `npm install`: `node scripts/lock-platforms.mjs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const ai = pkgs['node_modules/opencode-ai'];
if (!ai) {
  console.log('lock-platforms: opencode-ai is not in the lock; nothing to do');
  process.exit(0);
}
const PLATFORMS = {
  'opencode-darwin-arm64': ['darwin', 'arm64'], 'opencode-darwin-x64': ['darwin', 'x64'], 'opencode-darwin-x64-baseline': ['darwin', 'x64'],
  'opencode-linux-arm64': ['linux', 'arm64'], 'opencode-linux-arm64-musl': ['linux', 'arm64', 'musl'],
  'opencode-linux-x64-baseline-musl': ['linux', 'x64', 'musl'], 'opencode-linux-x64-musl': ['linux', 'x64', 'musl'],
  'opencode-windows-arm64': ['win32', 'arm64'], 'opencode-windows-x64': ['win32', 'x64'], 'opencode-windows-x64-baseline': ['win32', 'x64'],
};
let added = 0;
const out = {};
const platformKeys = Object.keys(pkgs).filter((k) => k.startsWith('node_modules/opencode-') && k !== 'node_modules/opencode-ai');
for (const [name, [os, cpu, libc]] of Object.entries(PLATFORMS)) {
  const key = `node_modules/${name}`;
  if (pkgs[key]) continue;
  pkgs[key] = { version: ai.version, cpu: [cpu], dev: true, ...(libc ? { libc: [libc] } : {}), optional: true, os: [os] };
  platformKeys.push(key);
  added++;
}
// Keep them together, right after opencode-ai, as npm writes them.
platformKeys.sort();
for (const [k, v] of Object.entries(pkgs)) {
  if (platformKeys.includes(k)) continue;
  out[k] = v;
  if (k === 'node_modules/opencode-ai') for (const p of platformKeys) out[p] = pkgs[p];
}
lock.packages = out;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`lock-platforms: ${added} entr${added === 1 ? 'y' : 'ies'} put back`);
