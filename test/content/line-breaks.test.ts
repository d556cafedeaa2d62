import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

const URL = 'https://example.com/page';
const PAGE = `<!DOCTYPE html><html><head><title>Breaks</title></head><body>
<p class="address">12 High Street<br>Springfield<br/>SP1 2AB</p>
<p>Photo <img src="/a.png" alt="a"> and a rule<hr></p>
<script>if (a < b && c > d) { go("</p>"); }</script>
</body></html>`;

/** A `<br>` is one line break in every output, as in a browser (cheerio's serializer wrote `<br></br>`, read as two). */
describe('line breaks and other void elements', () => {
  it('markdown: one hard line break per <br>, the lines staying in one paragraph', () => {
    const out = processContent(htmlInput(PAGE, URL, { response_format: 'markdown', main_content_only: false }));
    expect(out.body).toContain('12 High Street  \nSpringfield  \nSP1 2AB');
    expect(out.body).not.toMatch(/Street {2}\n\s*\n/);
  });

  it('html: void elements without end tags, script text as it was', () => {
    const out = processContent(htmlInput(PAGE, URL, { response_format: 'html', exclude_tags: ['.none'] }));
    expect(out.body).toContain('12 High Street<br>Springfield<br>SP1 2AB');
    expect(out.body).not.toMatch(/<\/(br|img|hr)>/);
    expect(out.body).toContain('<img src="https://example.com/a.png" alt="a">');
    expect(out.body).toContain('if (a < b && c > d) { go("</p>"); }');
  });

  it('extract: html and inner_html outputs write <br> once', () => {
    const out = processContent(htmlInput(PAGE, URL, { extract: { outer: { selector: 'p.address', output: 'html' }, inner: { selector: 'p.address', output: 'inner_html' } } }));
    const data = (out.envelope as { data: Record<string, string> }).data;
    expect(data.outer).toBe('<p class="address">12 High Street<br>Springfield<br>SP1 2AB</p>');
    expect(data.inner).toBe('12 High Street<br>Springfield<br>SP1 2AB');
  });
});
