/**
 * The two requests the fetch-tier benchmarks compare: the local page directly, and the same page
 * through POST /v1/scrape (with `fields` beside its url, e.g. a response_format).
 */
export function fetchTierRequests(
  page: string,
  api: { url: string; secret: string },
  fields: Record<string, unknown> = {},
): { direct: () => Promise<void>; viaApi: () => Promise<void> } {
  return {
    async direct() {
      const response = await fetch(page);
      await response.arrayBuffer();
    },
    async viaApi() {
      const response = await fetch(`${api.url}/v1/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: page, cache: false, ...fields }),
      });
      if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    },
  };
}
