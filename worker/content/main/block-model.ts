import { Element, type AnyNode, type ParentNode } from 'domhandler';
import model from './block-model.json' with { type: 'json' };
import { blockFeatures, FEATURE_NAMES } from './block-features.js';
import { paragraphs, type Paragraph } from './paragraphs.js';
import { removeParagraphs } from './refine.js';

/**
 * The block model: a logistic regression over Dragnet-style features of the page's blocks, the rules'
 * own answer among them (bench/train-main-content-model.ts trains it on the development collections
 * and writes block-model.json). A block the rules kept goes when the model gives it a chance of being
 * content under DROP_BELOW. docs/content.md ("The block model") has its figures.
 */
const DROP_BELOW = 0.35;
/** As with the noise rules: the model never takes more than this share of the article's text. */
const MAX_DROPPED_SHARE = 0.5;

/** Off only while the model is trained: its features read the rules' answer without it. */
export const blockModel = { enabled: true };

const WEIGHTS: number[] = FEATURE_NAMES.map((name) => {
  const index = (model.features as string[]).indexOf(name);
  if (index < 0) throw new Error(`block-model.json has no weight for ${name}`);
  return model.weights[index];
});

function normalised(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function chance(features: number[]): number {
  let z = 0;
  for (let j = 0; j < features.length; j += 1) z += features[j] * WEIGHTS[j];
  return 1 / (1 + Math.exp(-z));
}

/**
 * Removes from the article `nodes` the paragraphs the model finds unlikely content. `page`: the
 * furniture-stripped page the article was picked from (its blocks give the features).
 */
export function dropUnlikelyBlocks(nodes: AnyNode[], page: ParentNode): AnyNode[] {
  if (!blockModel.enabled) return nodes;
  const blocks = paragraphs(new Element('div', {}, [...page.children]));
  const root = new Element('div', {}, nodes);
  for (const node of nodes) node.parent = root;
  const kept = paragraphs(root);
  const held = normalised(kept.map((paragraph) => paragraph.text).join(' '));
  const texts = blocks.map((block) => normalised(block.text));
  const picked = texts.map((text) => held.includes(text));
  const features = blockFeatures(blocks, picked);
  const unlikely = new Set(texts.filter((text, i) => picked[i] && chance(features[i]) < DROP_BELOW));
  const dropped: Paragraph[] = unlikely.size === 0 ? [] : kept.filter((paragraph) => paragraph.owner !== root && unlikely.has(normalised(paragraph.text)));
  const total = kept.reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  if (dropped.reduce((sum, paragraph) => sum + paragraph.text.length, 0) <= total * MAX_DROPPED_SHARE) removeParagraphs(dropped);
  for (const child of root.children) child.parent = null;
  return root.children;
}
