/**
 * Trains and measures the block model of main_content_only (worker/content/main/block-model.ts) on
 * the development collections of ../shared/content-bench. Each page's blocks (jusText paragraphs of
 * the furniture-stripped page) get their features (block-features.ts) and a label: whether most of
 * the block's word 4-grams are in the page's gold text. A logistic regression, each page weighing
 * alike (the scorer averages pages), learns which blocks are content; the rules' own answer is one of
 * its features, so the model corrects it rather than replaces it.
 *
 * It reports, with the scorer's measure (ported to TypeScript; the bench confirms with evaluate.py):
 * trained on half A of every collection and measured on half B, and the other way; trained on two
 * collections and measured on the third. Then it trains on all pages and, with --write, writes the
 * weights to worker/content/main/block-model.json. Nothing of the collections is written into the
 * project: only the weights.
 * Run: npx tsx bench/train-main-content-model.ts [--write]
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ParentNode } from 'domhandler';
import { Element } from 'domhandler';
import { htmlInput } from '../test/content/helpers.js';
import { contentRoot } from '../worker/content/clean.js';
import { loadDocument } from '../worker/content/document.js';
import { blockFeatures, FEATURE_NAMES } from '../worker/content/main/block-features.js';
import { blockModel } from '../worker/content/main/block-model.js';
import { paragraphs } from '../worker/content/main/paragraphs.js';
import { removeFurniture } from '../worker/content/main/preclean.js';
import { processContent } from '../worker/content/pipeline.js';
import { loadPages, setDir, SETS, type SetName } from './main-content-pages.js';

interface PageBlocks {
  set: SetName;
  id: string;
  half: 'A' | 'B';
  gold: string;
  output: string;
  texts: string[];
  features: number[][];
  labels: number[];
  picked: boolean[];
}

const WORD = /[\p{L}\p{N}\p{M}_]+/gu;
const tokens = (text: string): string[] => text.match(WORD) ?? [];
const normalised = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

function shingles(text: string): Map<string, number> {
  const words = tokens(text);
  const counts = new Map<string, number>();
  for (let i = 0; i < Math.max(1, words.length - 3); i += 1) {
    const key = words.slice(i, i + 4).join(' ');
    if (key !== '') counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The scorer's per-page true/false positives and false negatives (evaluate.py, string_shingle_matching). */
function tpFpFn(gold: string, predicted: string): [number, number, number] {
  const truth = shingles(gold);
  const guess = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...truth.keys(), ...guess.keys()])) {
    const t = truth.get(key) ?? 0;
    const p = guess.get(key) ?? 0;
    tp += Math.min(t, p);
    fp += Math.max(0, p - t);
    fn += Math.max(0, t - p);
  }
  return [tp, fp, fn];
}

interface Score {
  f1: number;
  precision: number;
  recall: number;
}

function score(counts: Array<[number, number, number]>): Score {
  const precisions = counts.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => (fp === 0 && fn === 0 ? 1 : tp / (tp + fp)));
  const recalls = counts.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => (fp === 0 && fn === 0 ? 1 : tp / (tp + fn)));
  const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const precision = mean(precisions);
  const recall = mean(recalls);
  return { f1: (2 * precision * recall) / (precision + recall), precision, recall };
}

/** Whether most of the block's 4-grams (or, for a short block, its words in order) are in the gold text. */
function label(text: string, goldShingles: Map<string, number>, goldWords: string): number {
  const words = tokens(text);
  if (words.length === 0) return 0;
  if (words.length < 4) return goldWords.includes(` ${words.join(' ').toLowerCase()} `) ? 1 : 0;
  let found = 0;
  for (let i = 0; i + 4 <= words.length; i += 1) if (goldShingles.has(words.slice(i, i + 4).join(' '))) found += 1;
  return found / (words.length - 3) >= 0.5 ? 1 : 0;
}

function half(id: string): 'A' | 'B' {
  return createHash('md5').update(id).digest()[0] < 128 ? 'A' : 'B';
}

function blocksOf(set: SetName): PageBlocks[] {
  const truth = JSON.parse(readFileSync(`${setDir(set)}/ground-truth.json`, 'utf8')) as Record<string, { articleBody: string }>;
  return loadPages(set).map((page) => {
    const url = `http://127.0.0.1/${page.id}.html`;
    const gold = truth[page.id]?.articleBody ?? '';
    let output = '';
    try {
      output = processContent(htmlInput(page.html, url, { response_format: 'text', main_content_only: true })).body as string;
    } catch {
      output = '';
    }
    const { $ } = loadDocument(page.html, url);
    const body = contentRoot($)[0] as ParentNode;
    removeFurniture(body);
    const list = paragraphs(new Element('div', {}, [...body.children]));
    const held = normalised(output);
    const picked = list.map((paragraph) => held.includes(normalised(paragraph.text)));
    const goldShingles = shingles(gold);
    const goldWords = ` ${tokens(gold).join(' ').toLowerCase()} `;
    return {
      set,
      id: page.id,
      half: half(page.id),
      gold,
      output,
      texts: list.map((paragraph) => paragraph.text),
      features: blockFeatures(list, picked),
      labels: list.map((paragraph) => label(paragraph.text, goldShingles, goldWords)),
      picked,
    };
  });
}

/** Solves `matrix` · x = `vector` (Gaussian elimination with partial pivoting; the system is small). */
function solve(matrix: number[][], vector: number[]): number[] {
  const n = vector.length;
  const m = matrix.map((row, i) => [...row, vector[i]]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let row = col + 1; row < n; row += 1) if (Math.abs(m[row][col]) > Math.abs(m[pivot][col])) pivot = row;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let row = 0; row < n; row += 1) {
      if (row === col || m[col][col] === 0) continue;
      const factor = m[row][col] / m[col][col];
      for (let k = col; k <= n; k += 1) m[row][k] -= factor * m[col][k];
    }
  }
  return m.map((row, i) => (row[i] === 0 ? 0 : row[n] / row[i]));
}

/**
 * Logistic regression by Newton's method (iteratively reweighted least squares) with a small L2
 * penalty; each page's blocks weigh 1 in all, shared by the square root of their length (the scorer
 * averages pages, and a long block carries more of a page's words).
 */
function train(pages: PageBlocks[], alone = false): number[] {
  const masked = alone ? new Set(FEATURE_NAMES.flatMap((name, j) => (name.includes('picked') ? [j] : []))) : new Set<number>();
  const rows: Array<{ x: number[]; y: number; w: number }> = [];
  for (const page of pages) {
    const lengths = page.texts.map((text) => Math.sqrt(text.length));
    const total = lengths.reduce((sum, length) => sum + length, 0) || 1;
    page.features.forEach((x, i) => rows.push({ x: x.map((value, j) => (masked.has(j) ? 0 : value)), y: page.labels[i], w: lengths[i] / total }));
  }
  const n = FEATURE_NAMES.length;
  const L2 = 0.01;
  let weights = new Array<number>(n).fill(0);
  for (let iteration = 0; iteration < 12; iteration += 1) {
    const gradient = weights.map((weight, j) => (j === 0 ? 0 : L2 * weight));
    const hessian = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j && i > 0 ? L2 : i === j ? 1e-9 : 0)));
    for (const { x, y, w } of rows) {
      let z = 0;
      for (let j = 0; j < n; j += 1) z += x[j] * weights[j];
      const p = 1 / (1 + Math.exp(-z));
      const error = (p - y) * w;
      const curvature = p * (1 - p) * w;
      for (let i = 0; i < n; i += 1) {
        if (x[i] === 0) continue;
        gradient[i] += error * x[i];
        const row = hessian[i];
        const scaled = curvature * x[i];
        for (let j = 0; j < n; j += 1) row[j] += scaled * x[j];
      }
    }
    const step = solve(hessian, gradient);
    weights = weights.map((weight, j) => weight - step[j]);
  }
  return weights;
}

const probability = (weights: number[], x: number[]): number => 1 / (1 + Math.exp(-x.reduce((sum, value, j) => sum + value * weights[j], 0)));

interface Weights {
  joint: number[];
  /** Trained without the rules' answer among its features: a second extraction of its own. */
  alone: number[];
}

interface Variant {
  name: string;
  text(page: PageBlocks, weights: Weights): string;
}

/** The rules' answer when it holds at least `share` of what the lone model keeps, else the lone model's. */
function switched(page: PageBlocks, weights: Weights, share: number): string {
  const mine = page.features.map((x) => probability(weights.alone, x) >= 0.5);
  const mineChars = page.texts.reduce((sum, text, i) => sum + (mine[i] ? text.length : 0), 0);
  const shared = page.texts.reduce((sum, text, i) => sum + (mine[i] && page.picked[i] ? text.length : 0), 0);
  return shared >= mineChars * share ? page.output : keptBlocks(page, (i) => mine[i]);
}

const keptBlocks = (page: PageBlocks, keep: (i: number) => boolean): string =>
  page.texts.filter((_, i) => keep(i)).join('\n\n');

const VARIANTS: Variant[] = [
  { name: 'rules (actual output)', text: (page) => page.output },
  { name: 'rules (its blocks)', text: (page) => keptBlocks(page, (i) => page.picked[i]) },
  { name: 'model p>=0.5', text: (page, w) => keptBlocks(page, (i) => probability(w.joint, page.features[i]) >= 0.5) },
  { name: 'lone model p>=0.5', text: (page, w) => keptBlocks(page, (i) => probability(w.alone, page.features[i]) >= 0.5) },
  { name: 'rules + lone adds p>=0.7', text: (page, w) => keptBlocks(page, (i) => page.picked[i] || probability(w.alone, page.features[i]) >= 0.7) },
  { name: 'rules + lone adds p>=0.9', text: (page, w) => keptBlocks(page, (i) => page.picked[i] || probability(w.alone, page.features[i]) >= 0.9) },
  { name: 'switch to lone, share<0.3', text: (page, w) => switched(page, w, 0.3) },
  { name: 'switch to lone, share<0.5', text: (page, w) => switched(page, w, 0.5) },
  { name: 'rules + model adds p>=0.6', text: (page, w) => keptBlocks(page, (i) => page.picked[i] || probability(w.joint, page.features[i]) >= 0.6) },
  { name: 'rules - model drops p<0.35', text: (page, w) => keptBlocks(page, (i) => page.picked[i] && probability(w.joint, page.features[i]) >= 0.35) },
  { name: 'rules - model drops p<0.5', text: (page, w) => keptBlocks(page, (i) => page.picked[i] && probability(w.joint, page.features[i]) >= 0.5) },
  { name: 'rules + model adds p>=0.8', text: (page, w) => keptBlocks(page, (i) => page.picked[i] || probability(w.joint, page.features[i]) >= 0.8) },
  { name: 'rules - model drops p<0.2', text: (page, w) => keptBlocks(page, (i) => page.picked[i] && probability(w.joint, page.features[i]) >= 0.2) },
];

function report(title: string, test: PageBlocks[], training: PageBlocks[]): void {
  const weights = { joint: train(training), alone: train(training, true) };
  console.log(`\n${title}`);
  for (const variant of VARIANTS) {
    const line = SETS.map((set) => {
      const pages = test.filter((page) => page.set === set);
      if (pages.length === 0) return '';
      const s = score(pages.map((page) => tpFpFn(page.gold, variant.text(page, weights))));
      return `${set} ${s.f1.toFixed(3)} (${s.precision.toFixed(3)}/${s.recall.toFixed(3)})`;
    }).filter((part) => part !== '');
    console.log(`  ${variant.name.padEnd(28)} ${line.join('   ')}`);
  }
}

/** BLOCKS_CACHE=<file outside the project>: the pages' blocks are read from it when it exists, else written to it. */
function allBlocks(): PageBlocks[] {
  const cache = process.env.BLOCKS_CACHE;
  if (cache && existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as PageBlocks[];
  const pages = SETS.flatMap((set) => blocksOf(set));
  if (cache) writeFileSync(cache, JSON.stringify(pages));
  return pages;
}

function main(): void {
  blockModel.enabled = false;
  const pages = allBlocks();
  const a = pages.filter((page) => page.half === 'A');
  const b = pages.filter((page) => page.half === 'B');
  if (!process.argv.includes('--weights-only')) report('trained on halves A, measured on halves B', b, a);
  if (!process.argv.includes('--weights-only')) report('trained on halves B, measured on halves A', a, b);
  for (const held of process.argv.includes('--weights-only') ? [] : SETS) {
    report(`trained on the other two collections, measured on ${held}`, pages.filter((page) => page.set === held), pages.filter((page) => page.set !== held));
  }
  const weights = train(pages);
  console.log('\nweights (all pages):', FEATURE_NAMES.map((name, j) => `${name} ${weights[j].toFixed(2)}`).join(', '));
  if (process.argv.includes('--write')) {
    const file = new URL('../worker/content/main/block-model.json', import.meta.url);
    writeFileSync(file, `${JSON.stringify({ features: FEATURE_NAMES, weights: weights.map((w) => Number(w.toFixed(4))) }, null, 1)}\n`);
    console.log(`written: ${file.pathname}`);
  }
}

main();
