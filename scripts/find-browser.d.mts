/** Types of scripts/find-browser.mjs (the e2e harness imports it from TypeScript). */
export type BrowserFound = { path: string; from: 'CHROMIUM_PATH' | 'PATH' | 'install' | 'playwright' } | { error: string };
export function installLocations(platform?: NodeJS.Platform, env?: NodeJS.ProcessEnv, home?: string): string[];
export function findBrowser(opts?: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; home?: string; playwright?: () => string | undefined }): BrowserFound;
export const NO_BROWSER: string;
export const ROOT_NO_SANDBOX: string;
export function runningAsRoot(): boolean;
export function appSwitches(opts: { url: string; profile: string; root?: boolean }): string[];
