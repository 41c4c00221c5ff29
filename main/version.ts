/** The app's version (package.json), the contract's protocol number and when this core started, as the service and every client report them. */
import fs from 'node:fs';
import path from 'node:path';
import { appRoot } from './panes/env.ts';

/** Bumped on any change a client of another version could not speak (the service's hello, docs/design/service.md). */
export const PROTOCOL = 1;

/** When this process (the core) started. */
export const SERVICE_STARTED_AT = new Date().toISOString();

let version: string | undefined;
let testVersion: string | undefined | null = null;

export function appVersion(): string {
  if (version === undefined) {
    try {
      version = String(JSON.parse(fs.readFileSync(path.join(appRoot, 'package.json'), 'utf8')).version ?? '0.0.0');
    } catch {
      version = '0.0.0';
    }
  }
  // A test can play an older or newer service (TD_TEST only), to see a window meet it: the
  // version in TD_TEST_VERSION_FILE, read once when this process starts using it.
  if (testVersion === null) {
    testVersion = undefined;
    if (process.env.TD_TEST === '1' && process.env.TD_TEST_VERSION_FILE) {
      try {
        testVersion = fs.readFileSync(process.env.TD_TEST_VERSION_FILE, 'utf8').trim() || undefined;
      } catch {
        testVersion = undefined;
      }
    }
  }
  return testVersion ?? version;
}
