import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError, toServiceError } from '../../lib/errors/index.js';
import { packageVersion } from '../../lib/version.js';
import type { Principal } from '../auth/key-resolver.js';
import { requireScope } from '../middleware/auth.js';
import { problemResult, serviceErrorResult } from './results.js';
import type { CallApi, ToolSpec } from './tools.js';

export const MCP_SERVER_NAME = 'trawler';

/**
 * One MCP server for one caller: lists the tools, and runs a call after checking the caller's key has
 * the tool's scope (403 ERR::AUTH::INSUFFICIENT_SCOPE as a tool error otherwise). Failures are tool
 * errors carrying the problem's code and retryable, never protocol errors.
 */
export function createMcpServer(specs: ToolSpec[], principal: Principal, api: CallApi): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version: packageVersion() }, { capabilities: { tools: {} } });
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: specs.map((spec): Tool => ({ name: spec.name, title: spec.title, description: spec.description, inputSchema: spec.inputSchema as Tool['inputSchema'] })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const spec = byName.get(request.params.name);
    if (!spec) return problemResult({ code: 'ERR::REQUEST::NOT_FOUND', retryable: false, status: 404, detail: `no tool ${request.params.name}`, request_id: null });
    try {
      requireScope(principal, spec.scope);
      return await spec.run(request.params.arguments ?? {}, api);
    } catch (error) {
      return serviceErrorResult(error instanceof ServiceError ? error : toServiceError(error));
    }
  });
  return server;
}
