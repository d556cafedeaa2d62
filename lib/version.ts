import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding Trawler's package.json, found by walking up from this file (sources or dist/). */
export function packageRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i += 1) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const parsed = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (parsed.name === 'trawler') return dir;
    }
    dir = dirname(dir);
  }
  return null;
}

/** The package version. */
export function packageVersion(): string {
  const root = packageRoot();
  if (!root) return '0.0.0';
  const parsed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  return parsed.version ?? '0.0.0';
}
