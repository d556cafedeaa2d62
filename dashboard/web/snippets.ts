/** The same scrape as curl, the CLI and JavaScript (playground, request log "copy as curl"). */
export type Params = Record<string, unknown>;

export const KEY_PLACEHOLDER = '$TRAWLER_API_KEY';

const shellQuote = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

export function curlSnippet(apiUrl: string, params: Params, key = KEY_PLACEHOLDER): string {
  return [
    `curl -X POST ${shellQuote(`${apiUrl}/v1/scrape`)}`,
    `  -H "Authorization: Bearer ${key}"`,
    `  -H 'Content-Type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(params))}`,
  ].join(' \\\n');
}

/** `trawler scrape URL --flag value`, spelled as cli/scrape/parameter-flags.ts reads it. */
export function cliSnippet(apiUrl: string, params: Params): string {
  const parts = ['trawler scrape', shellQuote(String(params.url ?? ''))];
  for (const [name, value] of Object.entries(params)) {
    if (name === 'url') continue;
    const flag = `--${name.replaceAll('_', '-')}`;
    if (value === true) parts.push(flag);
    else if (value === false) parts.push(`--no-${name.replaceAll('_', '-')}`);
    else if (Array.isArray(value) && value.every((item) => typeof item !== 'object')) parts.push(flag, shellQuote(value.join(',')));
    else if (typeof value === 'object') parts.push(flag, shellQuote(JSON.stringify(value)));
    else parts.push(flag, shellQuote(String(value)));
  }
  return `TRAWLER_API_URL=${shellQuote(apiUrl)} TRAWLER_API_KEY=${KEY_PLACEHOLDER} \\\n  ${parts.join(' ')}`;
}

export function javascriptSnippet(apiUrl: string, params: Params): string {
  return [
    `const response = await fetch(${JSON.stringify(`${apiUrl}/v1/scrape`)}, {`,
    `  method: 'POST',`,
    `  headers: { Authorization: \`Bearer \${process.env.TRAWLER_API_KEY}\`, 'Content-Type': 'application/json' },`,
    `  body: JSON.stringify(${JSON.stringify(params, null, 2).replaceAll('\n', '\n  ')}),`,
    `});`,
    `console.log(response.status, response.headers.get('x-credits-charged'), await response.text());`,
  ].join('\n');
}
