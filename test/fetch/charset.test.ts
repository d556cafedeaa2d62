import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { startTargetSite, CHARSET_TEXT, SHIFT_JIS_TEXT, type TargetSite } from '../support/target-site.js';
import { engineContext, fetchJob } from './helpers.js';

const policy = { allowLoopback: true };
let site: TargetSite;
let guard: EgressGuard;
let engine: FetchEngine;

beforeAll(async () => {
  site = await startTargetSite();
  guard = await EgressGuard.start({ policy });
  engine = new FetchEngine({ guard, policy });
});
afterAll(async () => {
  await guard.close();
  await site.close();
});

describe.each([true, false])('charset decoding, impersonate=%s', (impersonate) => {
  const text = async (path: string) =>
    (await engine.fetch(fetchJob({ url: `${site.origin}${path}`, impersonate }), engineContext())).text ?? '';

  it.each([
    ['/charset/latin1-header', CHARSET_TEXT],
    ['/charset/latin1-meta', CHARSET_TEXT],
    ['/charset/utf16-bom', CHARSET_TEXT],
    ['/charset/shift-jis-header', SHIFT_JIS_TEXT],
    ['/charset/shift-jis-http-equiv', SHIFT_JIS_TEXT],
  ])('%s decodes to the original characters', async (path, expected) => {
    const decoded = await text(path);
    expect(decoded).toContain(expected);
    expect(decoded).not.toContain('\ufffd');
  });
});
