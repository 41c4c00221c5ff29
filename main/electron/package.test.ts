/**
 * The packaged app's Electron fuses, read from electron-builder.yml by electron-builder's
 * own loader and checked by its own schema (the Electron binary cannot be downloaded on
 * the build machines, so the flipped binary itself is not at hand).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
// electron-builder 26's loader and validator (what `npm run dist` runs on this file).
const builderConfig = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: unknown): Promise<Record<string, unknown>>;
  validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
};

describe('electron-builder.yml', () => {
  it('is a valid electron-builder configuration', async () => {
    const config = await builderConfig.getConfig(ROOT, path.join(ROOT, 'electron-builder.yml'), null);
    await expect(builderConfig.validateConfiguration(config, { isEnabled: false, add() {} })).resolves.toBeUndefined();
  });

  it('flips the fuses: no NODE_OPTIONS, no --inspect, asar integrity, only app.asar, encrypted cookies; RunAsNode stays on', async () => {
    const config = await builderConfig.getConfig(ROOT, path.join(ROOT, 'electron-builder.yml'), null);
    expect(config.electronFuses).toEqual({
      // panes' `terminal-delight`, the MCP shim, the Tick launcher and the hooks run on the app's binary
      runAsNode: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });
});
