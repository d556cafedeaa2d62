import { describe, expect, it } from 'vitest';
import { ActionsSchema } from '../../lib/scrape/actions-schema.js';
import { failureOf, useBrowserEngine } from './browser-engine.js';

const fixture = useBrowserEngine('obscura');
const { render } = fixture;

describe('actions schema', () => {
  it('accepts a workflow and applies defaults', () => {
    const steps = ActionsSchema.parse([{ type: 'click', selector: '#go' }, { type: 'wait', ms: 100, on_error: 'skip' }]);
    expect(steps[0]).toMatchObject({ type: 'click', on_error: 'fail', button: 'left', click_count: 1 });
    expect(steps[1]).toMatchObject({ on_error: 'skip' });
  });

  it.each([
    ['an unknown step type', [{ type: 'teleport' }]],
    ['an unknown field', [{ type: 'click', selector: '#a', force: true }]],
    ['a wait over the bound', [{ type: 'wait', ms: 60_000 }]],
    ['waits adding up past the bound', [{ type: 'wait', ms: 20_000 }, { type: 'wait', ms: 20_000 }]],
    ['a script over the bound', [{ type: 'evaluate', script: 'x'.repeat(10_001) }]],
    ['too many steps', Array.from({ length: 51 }, () => ({ type: 'wait', ms: 1 }))],
    ['an empty list', []],
    ['a scroll with two modes', [{ type: 'scroll', to: 'bottom', y: 10 }]],
    ['a bad on_error', [{ type: 'hover', selector: 'a', on_error: 'ignore' }]],
  ])('refuses %s', (_label, steps) => {
    expect(ActionsSchema.safeParse(steps).success).toBe(false);
  });
});

describe('actions on the obscura engine', { timeout: 30_000 }, () => {
  it('fills, types, selects, checks, hovers and submits a form', async () => {
    const page = await render({
      url: `${fixture.site.origin}/form`,
      actions: [
        { type: 'fill', selector: '#name', value: 'Ada' },
        { type: 'type', selector: '#typed', text: 'xyz' },
        { type: 'select', selector: '#color', values: 'blue' },
        { type: 'check', selector: '#agree' },
        { type: 'hover', selector: '#hover-target' },
        { type: 'click', selector: '#go' },
        { type: 'wait_for', selector: '#result:not(:empty)' },
      ],
    });
    expect(page.text).toContain('<div id="result">Ada|xyz|blue|true</div>');
    expect(page.text).toContain('<div id="hover-target">hovered</div>');
  });

  it('presses keys: Enter submits the form', async () => {
    const page = await render({
      url: `${fixture.site.origin}/form`,
      actions: [
        { type: 'fill', selector: '#name', value: 'Bob' },
        { type: 'press', selector: '#name', key: 'Enter' },
        { type: 'wait_for', selector: '#result:not(:empty)' },
      ],
    });
    expect(page.text).toContain('Bob||red|false');
  });

  it('scrolls an infinite list until it ends', async () => {
    const page = await render({
      url: `${fixture.site.origin}/infinite`,
      actions: [
        { type: 'wait_for', selector: '.item' },
        { type: 'infinite_scroll', max_scrolls: 20, delay: 2_000, stop_selector: '#end' },
      ],
    });
    expect(page.text).toContain('item 20');
    expect(page.text).toContain('The end');
  });

  it('returns evaluate results in step order', async () => {
    const page = await render({
      url: `${fixture.site.origin}/client-rendered`,
      actions: [
        { type: 'evaluate', script: 'document.querySelector("#title").textContent' },
        { type: 'scroll', to: 'bottom' },
        { type: 'evaluate', script: 'const n = await Promise.resolve(20); n + 1' },
      ],
    });
    expect(page.actionResults).toEqual(['Rendered by JS', 21]);
  });

  it('a failing step ends the request with RENDER_FAILED naming the step', async () => {
    const failure = await failureOf(
      render({ url: `${fixture.site.origin}/form`, actions: [{ type: 'fill', selector: '#name', value: 'x' }, { type: 'click', selector: '#missing', timeout: 300 }] }),
    );
    expect(failure.code).toBe('ERR::ENGINE::RENDER_FAILED');
    expect(failure.detail).toContain('actions[1]');
  });

  it('a failing step with on_error skip lets the workflow go on', async () => {
    const page = await render({
      url: `${fixture.site.origin}/form`,
      actions: [
        { type: 'click', selector: '#missing', timeout: 300, on_error: 'skip' },
        { type: 'evaluate', script: 'throw new Error("nope")', on_error: 'skip' },
        { type: 'evaluate', script: '"after"' },
      ],
    });
    expect(page.actionResults).toEqual(['after']);
  });

  it('a screenshot step fails on obscura, which has no rasteriser', async () => {
    const failure = await failureOf(render({ url: `${fixture.site.origin}/static`, actions: [{ type: 'screenshot' }] }));
    expect(failure.code).toBe('ERR::ENGINE::RENDER_FAILED');
  });

  it('actions turn the default image blocking off', async () => {
    const before = fixture.site.hits('/img.png');
    await render({ url: `${fixture.site.origin}/images`, actions: [{ type: 'wait', ms: 1 }] });
    expect(fixture.site.hits('/img.png')).toBe(before + 1);
  });
});
