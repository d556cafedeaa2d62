import type { Element } from 'domhandler';
import { HEADINGS, type Box, type Flags } from './box.js';

/* Readability's class and id words, as it has them. */
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE = /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;

export function marker(element: Element | null): string {
  return element ? `${element.attribs.class ?? ''} ${element.attribs.id ?? ''}` : ' ';
}

export function classWeight(box: Box, flags: Flags): number {
  if (!flags.weightClasses || !box.source) return 0;
  let weight = 0;
  for (const value of [box.source.attribs.class, box.source.attribs.id]) {
    if (!value) continue;
    if (NEGATIVE.test(value)) weight -= 25;
    if (POSITIVE.test(value)) weight += 25;
  }
  return weight;
}

const LISTS_AND_FORMS = new Set(['address', 'ol', 'ul', 'dl', 'dd', 'dt', 'li', 'form']);

export function tagBase(name: string): number {
  if (name === 'div') return 5;
  if (name === 'pre' || name === 'td' || name === 'blockquote') return 3;
  if (LISTS_AND_FORMS.has(name)) return -3;
  if (HEADINGS.has(name) || name === 'th') return -5;
  return 0;
}
