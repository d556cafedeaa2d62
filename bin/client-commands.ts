/** The API client's commands (cli/): dispatched before any server code or configuration is loaded. */
export const CLIENT_COMMANDS = ['scrape', 'batch', 'requests', 'workers', 'usage', 'mcp', 'crawl', 'crawl-status', 'map'] as const;

export function isClientCommand(name: string | undefined): boolean {
  return (CLIENT_COMMANDS as readonly string[]).includes(name ?? '');
}
