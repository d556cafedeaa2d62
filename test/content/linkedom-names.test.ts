import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';

/**
 * linkedom is patched (patches/linkedom+*.patch) to keep the upper-case names it gives as tagName,
 * and to find a document's `<base>` by a walk rather than a compiled selector. Names and base URLs
 * must read as before.
 */
describe('linkedom names and base URLs as patched', () => {
  it('gives tagName and nodeName in upper case, whatever case the element was made in', () => {
    const { document } = parseHTML('<!DOCTYPE html><html><body><p>x</p><my-widget></my-widget></body></html>');
    const [p, widget] = Array.from(document.body.children as unknown as ArrayLike<Element>);
    expect([p.tagName, p.nodeName, widget.tagName]).toEqual(['P', 'P', 'MY-WIDGET']);
    expect(document.createElement('Div').tagName).toBe('DIV');
    expect(document.body.getElementsByTagName('P')).toHaveLength(1);
    expect(document.body.getElementsByTagName('MY-WIDGET')).toHaveLength(1);
  });

  it('reads the base URL from the first base element anywhere in the document, and null without one', () => {
    const withBase = parseHTML('<!DOCTYPE html><html><head></head><body><p>x</p><base href="https://a.example/b/"><base href="https://c.example/"></body></html>').document;
    expect(withBase.baseURI).toBe('https://a.example/b/');
    expect(withBase.body.firstElementChild!.baseURI).toBe('https://a.example/b/');
    expect(parseHTML('<!DOCTYPE html><html><head></head><body><p>x</p></body></html>').document.baseURI).toBeNull();
  });
});
