/** Types of scripts/hooks/record.mjs (main/agent-channel/cli.ts imports it). */
export interface RecordEntry {
  agent: string;
  part: 'hooks' | 'mcp' | 'plugin';
  file: string;
  /** The topmost folder the install made for the file. */
  made?: string;
}
export function readRecord(file: string): RecordEntry[];
export function recordAdd(file: string, entry: RecordEntry): void;
export function recordRemove(file: string, entry: RecordEntry): void;
