import robotsParserModule from 'robots-parser';

// The package is CommonJS (`module.exports = fn`) while its types declare an ES default export.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** The user agent token a crawl's robots.txt rules are read for. */
export const CRAWLER_TOKEN = 'Trawler';

export interface RobotsRules {
  allowed(url: string): boolean;
  crawlDelaySeconds(): number | undefined;
  sitemaps(): string[];
}

/**
 * robots.txt as the major crawlers read it (docs/crawl.md "robots.txt"): null text (404 or other 4xx)
 * allows everything; the longest matching rule wins, Allow on a tie; `*` and `$` wildcards.
 */
export function robotsRules(robotsUrl: string, text: string | null): RobotsRules {
  const robots = robotsParser(robotsUrl, text ?? '');
  return {
    allowed: (url) => robots.isAllowed(url, CRAWLER_TOKEN) !== false,
    crawlDelaySeconds: () => robots.getCrawlDelay(CRAWLER_TOKEN),
    sitemaps: () => robots.getSitemaps(),
  };
}
