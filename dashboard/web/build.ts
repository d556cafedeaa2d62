import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { packageRoot } from '../../lib/version.js';

/**
 * Bundles the dashboard's front end (TypeScript + Chart.js from node_modules) into one ES module, with
 * its page and stylesheet, under `outDir` (default dist/dashboard/public). Run by scripts/setup.sh and
 * `make build`; nothing is fetched at build or run time.
 */
export async function buildDashboardAssets(outDir?: string): Promise<string> {
  const root = packageRoot() ?? process.cwd();
  const source = join(root, 'dashboard', 'web');
  const out = outDir ?? join(root, 'dist', 'dashboard', 'public');
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(source, 'main.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    outfile: join(out, 'app.js'),
    logLevel: 'warning',
  });
  copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
  copyFileSync(join(source, 'app.css'), join(out, 'app.css'));
  copyFileSync(join(source, 'favicon.svg'), join(out, 'favicon.svg'));
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  buildDashboardAssets().then(
    (out) => process.stdout.write(`dashboard front end built in ${out}\n`),
    (error: unknown) => {
      process.stderr.write(`dashboard build failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
