import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type CrawleeModule = typeof import('@crawlee/cheerio');

/**
 * Runs `work` with Crawlee's CheerioCrawler module and a configuration on a fresh, unpersisted storage
 * directory (removed afterwards), its log at warnings: how the benchmarks compare against Crawlee.
 */
export async function withCrawlee<T>(work: (crawlee: CrawleeModule, config: InstanceType<CrawleeModule['Configuration']>) => Promise<T>): Promise<T> {
  const storage = mkdtempSync(join(tmpdir(), 'trawler-bench-crawlee-'));
  process.env.CRAWLEE_STORAGE_DIR = storage;
  try {
    const crawlee = await import('@crawlee/cheerio');
    crawlee.log.setLevel(crawlee.log.LEVELS.WARNING);
    return await work(crawlee, new crawlee.Configuration({ storageClientOptions: { localDataDirectory: storage }, persistStorage: false, purgeOnStart: true }));
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
}
