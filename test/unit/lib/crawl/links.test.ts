import { describe, expect, it } from 'vitest';
import { pageLinks } from '../../../../lib/crawl/links.js';

describe('pageLinks', () => {
  it('resolves every a and area href against the page, in document order, entities decoded', () => {
    const html = `<!doctype html><HTML><body><A HREF="/one?x=1&amp;y=2">1</A><map><area href="two.html"></map>
      <a href="https://other.example/three#top">3</a><a>no href</a><a href="">empty</a><a href="http://[bad">bad</a></body></html>`;
    expect(pageLinks(html, 'http://site.test/dir/page')).toEqual([
      'http://site.test/one?x=1&y=2',
      'http://site.test/dir/two.html',
      'https://other.example/three#top',
    ]);
  });

  it('uses the first <base href> for every link, also those before it, and ignores an unparsable one', () => {
    const before = `<a href="a">a</a><base href="http://cdn.test/root/"><base href="http://ignored.test/"><a href="b">b</a>`;
    expect(pageLinks(before, 'http://site.test/x/')).toEqual(['http://cdn.test/root/a', 'http://cdn.test/root/b']);
    expect(pageLinks(`<base href="http://[bad"><a href="c">c</a>`, 'http://site.test/x/')).toEqual(['http://site.test/x/c']);
  });

  it('finds no links in comments, scripts or attribute text', () => {
    const html = `<!-- <a href="/commented">x</a> --><script>document.write('<a href="/scripted">x</a>')</script><p title='<a href="/attr">'>t</p><a href="/real">r</a>`;
    expect(pageLinks(html, 'http://site.test/')).toEqual(['http://site.test/real']);
  });
});
