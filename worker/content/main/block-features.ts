import type { Element } from 'domhandler';
import { density, type Paragraph } from './paragraphs.js';

/**
 * Dragnet/boilerpipe-style features of a page's blocks (jusText paragraphs of the furniture-stripped
 * page), read by the block model (block-model.ts) and by its training script
 * (bench/train-main-content-model.ts). `picked`: whether the rules' own answer holds the block.
 */
export const FEATURE_NAMES = [
  'bias', 'log_chars', 'link_density', 'log_words', 'word_length', 'punctuation', 'sentence_end', 'digits',
  'heading', 'tag_p', 'tag_li', 'tag_cell', 'tag_div', 'position', 'page_share',
  'prev_log_chars', 'next_log_chars', 'prev_link_density', 'next_link_density', 'window_log_chars',
  'content_name', 'furniture_name', 'depth',
  'picked', 'prev_picked', 'next_picked', 'picked_x_log_chars', 'picked_x_link_density',
] as const;

const CONTENT_NAME = /article|content|entry|post|story|body|text|main/i;
const FURNITURE_NAME = /nav|menu|side|footer|header|widget|comment|related|tag|breadcrumb|banner|sponsor|promo|share|social|login|search/i;
const WORD = /[\p{L}\p{N}]+/gu;

interface BlockShape {
  logChars: number;
  links: number;
}

function shape(paragraph: Paragraph): BlockShape {
  return { logChars: Math.log1p(paragraph.text.length), links: density(paragraph) };
}

/** Class/id words of the block's element and its four nearest ancestors: [content-like, furniture-like]. */
function names(owner: Element): [number, number] {
  let content = 0;
  let furniture = 0;
  let node: Element | null = owner;
  for (let level = 0; node && level < 5; level += 1) {
    const marker = `${node.attribs.id ?? ''} ${node.attribs.class ?? ''}`;
    if (marker.length > 1) {
      if (CONTENT_NAME.test(marker)) content = 1;
      if (FURNITURE_NAME.test(marker)) furniture = 1;
    }
    node = node.parent?.type === 'tag' ? node.parent : null;
  }
  return [content, furniture];
}

function depth(owner: Element): number {
  let levels = 0;
  for (let node = owner.parent; node; node = node.parent) levels += 1;
  return Math.min(levels, 40) / 40;
}

/** One feature vector per paragraph, in FEATURE_NAMES order. */
export function blockFeatures(list: Paragraph[], picked: boolean[]): number[][] {
  const shapes = list.map(shape);
  const pageChars = list.reduce((sum, paragraph) => sum + paragraph.text.length, 0) || 1;
  const none: BlockShape = { logChars: 0, links: 0 };
  return list.map((paragraph, i) => {
    const { text, owner } = paragraph;
    const words = text.match(WORD) ?? [];
    const wordChars = words.reduce((sum, word) => sum + word.length, 0);
    const punctuation = (text.match(/[.,;:!?]/g) ?? []).length;
    const digits = (text.match(/\d/g) ?? []).length;
    const prev = shapes[i - 1] ?? none;
    const next = shapes[i + 1] ?? none;
    const window = shapes.slice(Math.max(0, i - 2), i + 3);
    const [contentName, furnitureName] = names(owner);
    const own = shapes[i];
    const isPicked = picked[i] ? 1 : 0;
    return [
      1,
      own.logChars / 8,
      own.links,
      Math.log1p(words.length) / 6,
      Math.min(words.length > 0 ? wordChars / words.length : 0, 12) / 12,
      Math.min(words.length > 0 ? punctuation / words.length : 0, 1),
      /[.!?"”')]$/.test(text) ? 1 : 0,
      Math.min(digits / text.length, 1),
      paragraph.heading ? 1 : 0,
      owner.name === 'p' ? 1 : 0,
      owner.name === 'li' || owner.name === 'dd' || owner.name === 'dt' ? 1 : 0,
      owner.name === 'td' || owner.name === 'th' ? 1 : 0,
      owner.name === 'div' ? 1 : 0,
      list.length > 1 ? i / (list.length - 1) : 0,
      Math.sqrt(text.length / pageChars),
      prev.logChars / 8,
      next.logChars / 8,
      prev.links,
      next.links,
      window.reduce((sum, block) => sum + block.logChars, 0) / window.length / 8,
      contentName,
      furnitureName,
      depth(owner),
      isPicked,
      picked[i - 1] ? 1 : 0,
      picked[i + 1] ? 1 : 0,
      (isPicked * own.logChars) / 8,
      isPicked * own.links,
    ];
  });
}
