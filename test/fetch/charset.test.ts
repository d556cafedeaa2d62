import { describe, expect, it } from 'vitest';
import { CHARSET_TEXT, SHIFT_JIS_TEXT } from '../support/target-site.js';
import { engineContext, fetchJob, useFetchEngine } from './fetch-engine.js';

const fixture = useFetchEngine();

describe.each([true, false])('charset decoding, impersonate=%s', (impersonate) => {
  const text = async (path: string) =>
    (await fixture.engine.fetch(fetchJob({ url: `${fixture.site.origin}${path}`, impersonate }), engineContext())).text ?? '';

  it.each([
    ['/charset/latin1-header', CHARSET_TEXT],
    ['/charset/latin1-meta', CHARSET_TEXT],
    ['/charset/utf16-bom', CHARSET_TEXT],
    // Mislabelled pages: UTF-8 bytes under a single-byte charset in the header or a meta tag.
    ['/charset/utf8-declared-latin1', CHARSET_TEXT],
    ['/charset/utf8-meta-windows-1252', CHARSET_TEXT],
    ['/charset/shift-jis-header', SHIFT_JIS_TEXT],
    ['/charset/shift-jis-http-equiv', SHIFT_JIS_TEXT],
  ])('%s decodes to the original characters', async (path, expected) => {
    const decoded = await text(path);
    expect(decoded).toContain(expected);
    expect(decoded).not.toContain('\ufffd');
  });
});
