/** The app's version (package.json), as the service and every client report it. */
import fs from 'node:fs';
import path from 'node:path';
import { appRoot } from './panes/env.ts';

let version: string | undefined;

export function appVersion(): string {
  if (version === undefined) {
    try {
      version = String(JSON.parse(fs.readFileSync(path.join(appRoot, 'package.json'), 'utf8')).version ?? '0.0.0');
    } catch {
      version = '0.0.0';
    }
  }
  // A test can play an older or newer service (TD_TEST only), to see a window meet it.
  return process.env.TD_TEST === '1' && process.env.TD_TEST_VERSION ? process.env.TD_TEST_VERSION : version;
}
