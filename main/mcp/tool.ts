/**
 * One MCP tool as a service offers it to the app's MCP server (main/mcp/server.ts).
 * Services (surfaces, tick) export lists of these; the server registers them with the
 * official SDK. `inputSchema` is a zod raw shape, as the SDK's `registerTool` takes.
 */
import type { ZodRawShape } from 'zod';

export interface ToolResult {
  /** Text for the model (JSON stringified when `json` is given instead). */
  text?: string;
  json?: unknown;
  isError?: boolean;
}

export interface ToolContext {
  /** Aborted when the client goes away or cancels. */
  signal: AbortSignal;
  /** The pane the calling agent runs in, from the stdio shim's environment ($TD_PANE_ID), when known. */
  askingPaneId?: string;
  /** The pid of the process that started the stdio shim (the agent), when known. */
  clientPid?: number;
}

export interface ToolDef {
  name: string;
  description: string;
  inputSchema: ZodRawShape;
  /** Whether the tool writes (refused while the "MCP writes" setting is off). */
  writes: boolean;
  handler(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
}
