/**
 * `terminal-delight hooks [--project DIR] [--settings FILE] [--mcp-config FILE | --no-mcp] [--uninstall]`:
 * runs scripts/install-agent-hooks.sh, which installs (or takes out) Claude Code's TDAC
 * hooks and registers the app's MCP server. Its output and exit code are the script's.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INSTALL_SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'install-agent-hooks.sh');

export function run(argv: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('sh', [INSTALL_SCRIPT, ...argv], { stdio: 'inherit' });
    child.on('error', (e) => {
      process.stderr.write(`terminal-delight hooks: could not run ${INSTALL_SCRIPT} (${e.message}): is sh on PATH?\n`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}
