import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';

/**
 * linkedom is patched (patches/linkedom+*.patch) to keep the upper-case names it gives as tagName
 * (on each element once read), to write `class` without making a class list, and to find a
 * document's `<base>` by a walk rather than a compiled selector. Names, classes and base URLs must
 * read as before.
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

  it('keeps an upper-case name per element and answers an XML document in its own case', () => {
    const { document } = parseHTML('<!DOCTYPE html><html><body><p>x</p></body></html>');
    const p = document.body.firstElementChild!;
    expect([p.tagName, p.tagName, document.createElement('P').tagName, document.createElement('p').localName]).toEqual(['P', 'P', 'P', 'p']);
    const xml = new (parseHTML('').DOMParser)().parseFromString('<root><Item/></root>', 'text/xml');
    expect(xml.documentElement.firstElementChild!.tagName).toBe('Item');
  });

  it('keeps class as its tokens, each once, joined by a space, however it is written or read', () => {
    const { document } = parseHTML('<!DOCTYPE html><html><body><div class="  a  b a "></div><p class=""></p></body></html>');
    const [div, p] = Array.from(document.body.children as unknown as ArrayLike<Element>);
    expect([div.className, div.getAttribute('class'), div.outerHTML]).toEqual(['a b', 'a b', '<div class="a b"></div>']);
    expect([p.className, p.hasAttribute('class'), p.outerHTML]).toEqual(['', true, '<p></p>']);
    div.setAttribute('class', 'x\ty x');
    expect([div.className, div.classList.contains('y'), div.classList.length]).toEqual(['x y', true, 2]);
    div.classList.add('z');
    div.classList.remove('x');
    expect([div.className, div.getAttribute('class')]).toEqual(['y z', 'y z']);
    div.className = ' q ';
    expect([div.className, div.classList.contains('y'), div.outerHTML]).toEqual(['q', false, '<div class="q"></div>']);
    div.removeAttribute('class');
    expect([div.className, div.hasAttribute('class'), div.classList.length]).toEqual(['', false, 0]);
    const made = document.createElement('span');
    made.className = 'm n m';
    expect([made.className, made.outerHTML]).toEqual(['m n', '<span class="m n"></span>']);
  });

  it('reads the base URL from the first base element anywhere in the document, and null without one', () => {
    const withBase = parseHTML('<!DOCTYPE html><html><head></head><body><p>x</p><base href="https://a.example/b/"><base href="https://c.example/"></body></html>').document;
    expect(withBase.baseURI).toBe('https://a.example/b/');
    expect(withBase.body.firstElementChild!.baseURI).toBe('https://a.example/b/');
    expect(parseHTML('<!DOCTYPE html><html><head></head><body><p>x</p></body></html>').document.baseURI).toBeNull();
  });
});
