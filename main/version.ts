/** The app's version (package.json), as the service and every client report it. */
import fs from 'node:fs';
import path from 'node:path';
import { appRoot } from './panes/env.ts';

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
