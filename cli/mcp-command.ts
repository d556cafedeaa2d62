import { Command } from 'commander';
import { runStdioBridge } from '../lib/mcp/stdio-bridge.js';
import { contextFrom, DEFAULT_API_URL, withConnectionOptions, type ConnectionFlags } from './context.js';

const fromEnv = (name: string): string | undefined => process.env[name]?.trim() || undefined;

/** `trawler mcp`: the MCP server over stdio for agents (docs/mcp.md), configured like every client command. */
export function mcpCommand(): Command {
  return withConnectionOptions(new Command('mcp'))
    .description("MCP server on stdio for agents, forwarding to the gateway's /v1/mcp with this key (docs/mcp.md)")
    .action(async (flags: ConnectionFlags) => {
      // The same checks of --api-url as every client command (a usage error, exit 2).
      contextFrom(flags);
      await runStdioBridge({
        apiUrl: flags.apiUrl ?? fromEnv('TRAWLER_API_URL') ?? DEFAULT_API_URL,
        apiKey: flags.apiKey ?? fromEnv('TRAWLER_API_KEY'),
      });
    });
}
