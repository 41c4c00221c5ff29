/**
 * Before any end-to-end test: is there a browser to drive? When there is none, the e2e
 * run fails here, once, with one sentence saying how to get one, instead of every test
 * failing with a launch error.
 */
import { findBrowser } from '../scripts/find-browser.mjs';

export default function setup(): void {
  const found = findBrowser();
  if ('error' in found) {
    const err = new Error(found.error);
    err.stack = `Error: ${found.error}`; // the sentence alone, not a trace into this file
    throw err;
  }
}
