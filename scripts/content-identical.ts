/**
 * Whether the content pipeline of this checkout answers every page of the development collections
 * (../shared/content-bench: l3s-gn1, dragnet-dev, cleaneval-dev) byte for byte as another commit's
 * does, in every response format. The other commit's `lib/` and `worker/` are unpacked to a
 * temporary folder (sharing this checkout's node_modules); each side runs in a process of its own
 * and writes its answers there; then the two are compared and each page that differs is named.
 * Run: npx tsx scripts/content-identical.ts [commit, default a4b2da3] (CONTENT_BENCH_DIR overrides
 * where the collections are; COLLECTIONS=l3s-gn1,... picks some; EVERY=n takes every n-th page;
 * BEFORE_ANSWERS=<dir> reuses the commit's answers from the `before` folder of an earlier run).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { getEncoding } from 'encoding-sniffer';
import iconv from 'iconv-lite';

const CHECKOUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** ../shared beside the checkout (or beside its worktrees' folder). */
const COLLECTION_DIR =
  process.env.CONTENT_BENCH_DIR ?? [path.resolve(CHECKOUT, '..', 'shared', 'content-bench'), path.resolve(CHECKOUT, '..', '..', 'shared', 'content-bench')].find((dir) => existsSync(dir)) ?? '';
const COLLECTIONS = (process.env.COLLECTIONS ?? 'l3s-gn1,dragnet-dev,cleaneval-dev').split(',');
const EVERY = Number(process.env.EVERY ?? 1);
/** FORMATS=html,markdown,...: a side's answers in only these formats (to split a side over processes). */
const ONLY_FORMATS = process.env.FORMATS?.split(',');

/** Every document format, with and without the main-content pick, and the envelope with everything it can carry. */
const FORMATS: Record<string, Record<string, unknown>> = {
  'html': { response_format: 'html' },
  'html-main': { response_format: 'html', main_content_only: true },
  'markdown': { response_format: 'markdown' },
  'markdown-whole': { response_format: 'markdown', main_content_only: false },
  'text': { response_format: 'text' },
  'text-whole': { response_format: 'text', main_content_only: false },
  'json': { response_format: 'json', links: true, autoparse: true },
  'json-html-main': { response_format: 'json', links: true, main_content_only: true, extract: { title: { selector: 'h1' }, links: { selector: 'a', type: 'list', output: '@href' } } },
};

function pages(collection: string): Array<{ id: string; html: string }> {
  const dir = path.join(COLLECTION_DIR, collection, 'html');
  return readdirSync(dir)
    .filter((name, index) => name.endsWith('.html.gz') && index % EVERY === 0)
    .sort()
    .map((name) => {
      const raw = gunzipSync(readFileSync(path.join(dir, name)));
      return { id: name.replace(/\.html\.gz$/, ''), html: iconv.decode(raw, getEncoding(raw) ?? 'utf-8') };
    });
}

/** In the child: every page through `root`'s pipeline in every format, as `<out>/<collection>.<format>.json`. */
async function dump(root: string, out: string): Promise<void> {
  const { processContent } = (await import(path.join(root, 'worker/content/pipeline.ts'))) as typeof import('../worker/content/pipeline.js');
  const { defaultScrapeParams } = (await import(path.join(root, 'lib/scrape/defaults.ts'))) as typeof import('../lib/scrape/defaults.js');
  for (const collection of COLLECTIONS) {
    const all = pages(collection);
    for (const [format, overrides] of Object.entries(FORMATS)) {
      if (ONLY_FORMATS && !ONLY_FORMATS.includes(format)) continue;
      const answers: Record<string, string> = {};
      for (const page of all) {
        const url = `http://127.0.0.1/${page.id}.html`;
        try {
          const output = processContent({
            page: { finalUrl: url, status: 200, mediaType: 'text/html', text: page.html },
            params: { ...defaultScrapeParams(), url, ...overrides } as never,
            extras: {},
            engine: 'fetch',
          });
          answers[page.id] = `${output.contentType}\n${output.warnings.join('\n')}\n${output.needsJavaScript}\n${output.body}\n${JSON.stringify(output.envelope)}`;
        } catch (error) {
          answers[page.id] = `error: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`;
        }
      }
      writeFileSync(path.join(out, `${collection}.${format}.json`), JSON.stringify(answers));
    }
  }
}

function runSide(root: string, out: string): void {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--dump', root, out], { stdio: 'inherit', cwd: CHECKOUT });
  if (child.status !== 0) throw new Error(`the pipeline of ${root} failed (exit ${child.status ?? child.signal})`);
  console.log(`${root}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i += 1;
  const around = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 80), i + 80));
  return `at ${i}:\n    before ${around(a)}\n    after  ${around(b)}`;
}

function compare(before: string, after: string): number {
  let differing = 0;
  for (const collection of COLLECTIONS) {
    for (const format of Object.keys(FORMATS)) {
      const file = `${collection}.${format}.json`;
      const a = JSON.parse(readFileSync(path.join(before, file), 'utf8')) as Record<string, string>;
      const b = JSON.parse(readFileSync(path.join(after, file), 'utf8')) as Record<string, string>;
      const ids = Object.keys(a).filter((id) => a[id] !== b[id]);
      differing += ids.length;
      console.log(`${collection.padEnd(14)} ${format.padEnd(15)} ${Object.keys(a).length} pages, ${ids.length} differ`);
      for (const id of ids.slice(0, 5)) console.log(`  ${id} ${firstDifference(a[id], b[id] ?? '')}`);
    }
  }
  return differing;
}

/**
 * The commit's node_modules: this checkout's, except that a package patched otherwise in either
 * (patches/, applied by patch-package until issue 31c) is copied with this checkout's patch undone
 * and the commit's applied.
 */
function baseModules(commit: string, base: string): void {
  const modules = path.join(base, 'node_modules');
  mkdirSync(modules);
  const patched = new Map<string, string>();
  const ourDir = path.join(CHECKOUT, 'patches');
  const listed = spawnSync('git', ['-C', CHECKOUT, 'ls-tree', '--name-only', `${commit}:patches`], { encoding: 'utf8' });
  const theirFiles = listed.status === 0 ? listed.stdout.split('\n').filter(Boolean) : [];
  const files = new Set([...(existsSync(ourDir) ? readdirSync(ourDir) : []), ...theirFiles]);
  for (const file of files) {
    const ours = existsSync(path.join(ourDir, file)) ? readFileSync(path.join(ourDir, file), 'utf8') : null;
    const theirs = spawnSync('git', ['-C', CHECKOUT, 'show', `${commit}:patches/${file}`], { encoding: 'utf8' });
    if (theirs.status === 0 && theirs.stdout === ours) continue;
    const name = file.slice(0, file.lastIndexOf('+')).replace('+', '/');
    patched.set(name.split('/')[0], file);
    cpSync(path.join(CHECKOUT, 'node_modules', name), path.join(modules, name), { recursive: true });
    if (ours !== null) execFileSync('patch', ['-s', '-p1', '-R', '-i', path.join(ourDir, file)], { cwd: base });
    if (theirs.status === 0) execFileSync('patch', ['-s', '-p1'], { cwd: base, input: theirs.stdout });
  }
  for (const entry of readdirSync(path.join(CHECKOUT, 'node_modules'))) {
    if (!patched.has(entry)) symlinkSync(path.join(CHECKOUT, 'node_modules', entry), path.join(modules, entry));
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--dump') return dump(process.argv[3], process.argv[4]);
  const commit = process.argv[2] ?? 'a4b2da3';
  const work = mkdtempSync(path.join(tmpdir(), 'trawler-identical-'));
  const base = path.join(work, 'base');
  execFileSync('mkdir', ['-p', base, path.join(work, 'before'), path.join(work, 'after')]);
  execFileSync('sh', ['-c', `git -C "${CHECKOUT}" archive ${commit} lib worker package.json | tar -x -C "${base}"`]);
  baseModules(commit, base);
  console.log(`${commit} against this checkout; ${COLLECTIONS.join(', ')}; formats ${Object.keys(FORMATS).join(', ')}; answers in ${work}`);
  const before = process.env.BEFORE_ANSWERS ?? path.join(work, 'before');
  if (process.env.BEFORE_ANSWERS) console.log(`the commit's answers are taken from ${before}`);
  else runSide(base, before);
  runSide(CHECKOUT, path.join(work, 'after'));
  const differing = compare(before, path.join(work, 'after'));
  console.log(differing === 0 ? 'identical' : `${differing} answers differ`);
  process.exitCode = differing === 0 ? 0 : 1;
}

await main();
