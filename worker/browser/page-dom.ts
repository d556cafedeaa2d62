import type { CDPSession, Page } from 'playwright-core';

/**
 * The page's DOM read in the browser over CDP (`DOM.querySelector`, `DOM.getOuterHTML`), without
 * running script in the page. Playwright's `waitForSelector` and `content()` each compile its
 * injected selector script (about 340 KB) in a world of the page first, about half a megabyte of
 * protocol and two script compilations per render; these reads send a few hundred bytes.
 * Every method answers null when the browser cannot (a CDP server without the DOM domain, a
 * selector only Playwright understands), and the caller falls back to Playwright's own call.
 */
export class PageDom {
  private session: Promise<CDPSession> | null = null;

  constructor(private readonly page: Page) {}

  /** Whether an element matches the CSS selector now; null: not a selector the DOM domain takes. */
  async has(selector: string): Promise<boolean | null> {
    try {
      const nodeId = await this.documentNode();
      const { nodeId: found } = await (await this.cdp()).send('DOM.querySelector', { nodeId, selector });
      return found !== 0;
    } catch {
      return null;
    }
  }

  /** The serialised document, doctype included: what `page.content()` returns for an HTML page. */
  async html(): Promise<string | null> {
    try {
      const nodeId = await this.documentNode();
      const { outerHTML } = await (await this.cdp()).send('DOM.getOuterHTML', { nodeId });
      return outerHTML;
    } catch {
      return null;
    }
  }

  /** Opened on first use, so renders that never read the DOM this way attach no session. */
  private cdp(): Promise<CDPSession> {
    this.session ??= this.page.context().newCDPSession(this.page);
    return this.session;
  }

  /** Asked each time: node ids of an earlier document are gone after a navigation. */
  private async documentNode(): Promise<number> {
    const { root } = await (await this.cdp()).send('DOM.getDocument', { depth: 0 });
    return root.nodeId;
  }
}
