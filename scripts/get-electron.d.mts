/** Types of scripts/get-electron.mjs (its test imports it from TypeScript). */
export const ELECTRON_PACKAGE: string;
export const STALL_S: number;
export const TOTAL_S: number;
export function electronBinary(dir?: string, env?: NodeJS.ProcessEnv): string | undefined;
export function installerReason(stderr: string): string;
export function getElectron(opts?: { dir?: string; env?: NodeJS.ProcessEnv; cwd?: string; log?: (s: string) => void; tty?: boolean; stallS?: number; totalS?: number }): Promise<{ path: string } | { reason: string; interrupted?: true }>;
