import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import { packageVersion } from '../version.js';

/** A scrape may use its whole budget and a slot wait; the SDK's 60 s default would cut it short. */
const CALL_TIMEOUT_MS = 300_000;

export interface StdioBridgeOptions {
  /** The gateway, e.g. http://127.0.0.1:8080 (`/v1/mcp` is added). */
  apiUrl: string;
  apiKey: string | undefined;
  stdin?: Readable;
  stdout?: Writable;
}

/** A failure to reach the gateway (or its refusal of the key) as a tool error with the problem's code. */
function unreachable(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  const code = /"code"\s*:\s*"(ERR::[A-Z_]+::[A-Z_]+)"/.exec(message)?.[1] ?? 'ERR::INTERNAL::UNAVAILABLE';
  const retryable = /"retryable"\s*:\s*true/.test(message) || code === 'ERR::INTERNAL::UNAVAILABLE';
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message.slice(0, 500)} (retryable: ${retryable})` }],
    structuredContent: { code, retryable, detail: message.slice(0, 500) },
  };
}

/**
 * `trawler mcp`: an MCP server on stdio that forwards each request to the gateway's `/v1/mcp` with
 * the configured key (docs/mcp.md). The tools, their schemas and their checks live once, in the
 * gateway; this process only carries messages, so it needs no configuration but the address and key.
 */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const link: { connected: Promise<Client> | null } = { connected: null };
  const upstream = (): Promise<Client> => {
    link.connected ??= (async () => {
      const client = new Client({ name: 'trawler-mcp-stdio', version: packageVersion() });
      const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
      const url = new URL('v1/mcp', options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      return client;
    })().catch((error: unknown) => {
      link.connected = null;
      throw error;
    });
    return link.connected;
  };
  const server = new Server({ name: 'trawler', version: packageVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => (await upstream()).listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      return (await (await upstream()).callTool(request.params, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
    } catch (error) {
      return unreachable(error);
    }
  });
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  await closed;
  await (await link.connected?.catch(() => null))?.close();
}
