import { describe, expect, it } from 'vitest';
import { isBlank, scan, trimmed, trimmedLength } from '../../../../../../worker/content/main/pick/text-span.js';
import { collapseWhitespace } from '../../../../../../worker/content/whitespace.js';

const SAMPLES = [
  '',
  ' ',
  'word',
  ' a  b\tc\n\nd \n e ',
  '\u00a0lead and trail\u3000',
  'one\u2028two\u2029three\ufeff\u1680four\u2000\u200a\u202f\u205f',
  'a \t b',
  '\n',
  'x\r\ny',
  'tabs\t\tand  spaces   ',
  'no-break\u00a0 space',
];

describe('text spans', () => {
  it('collapses whitespace as replace(/\\s+/g, " ").trim() does', () => {
    for (const sample of SAMPLES) expect(collapseWhitespace(sample)).toBe(sample.replace(/\s+/g, ' ').trim());
  });

  it('tells blank text and trimmed lengths as trim() does', () => {
    for (const sample of SAMPLES) {
      expect(isBlank(sample)).toBe(sample.trim() === '');
      expect(trimmedLength(sample)).toBe(sample.trim().length);
    }
  });

  it('measures the collapsed, trimmed text without making it', () => {
    for (const sample of SAMPLES) expect(trimmed(scan(sample))).toBe(sample.replace(/\s+/g, ' ').trim().length);
  });
});
