import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';

/**
 * linkedom is patched (patches/linkedom+*.patch, applied by patch-package at install) to create a
 * node's listener map on its first listener instead of in every node's constructor. Events must
 * work as before on nodes with and without listeners.
 */
describe('linkedom events with listener maps made on first use', () => {
  it('delivers, removes and ignores listeners as the DOM does', () => {
    const { document, Event } = parseHTML('<!DOCTYPE html><html><body><div id="outer"><p id="inner">x</p></div></body></html>');
    const outer = document.getElementById('outer')!;
    const inner = document.getElementById('inner')!;
    const seen: string[] = [];
    const onOuter = (event: Event) => seen.push(`outer:${event.type}`);
    outer.addEventListener('ping', onOuter);
    inner.addEventListener('ping', () => seen.push('inner:ping'), { once: true });

    inner.dispatchEvent(new Event('ping', { bubbles: true }));
    inner.dispatchEvent(new Event('ping', { bubbles: true }));
    outer.removeEventListener('ping', onOuter);
    inner.dispatchEvent(new Event('ping', { bubbles: true }));

    expect(seen).toEqual(['inner:ping', 'outer:ping', 'outer:ping']);
  });

  it('lets a listener be removed from a node that never had one', () => {
    const { document, Event } = parseHTML('<p>x</p>');
    const paragraph = document.createElement('p');
    expect(() => paragraph.removeEventListener('ping', () => undefined)).not.toThrow();
    expect(paragraph.dispatchEvent(new Event('ping'))).toBe(true);
  });
});
