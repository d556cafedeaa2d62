import { describe, expect, it } from 'vitest';
import { ConnectionPolicy } from '../../../../../worker/browser/remote/cdp-policy.js';

const OWN = 'ctx-own';
const PROXY = 'http://127.0.0.1:4567';

function policy(): ConnectionPolicy {
  return new ConnectionPolicy({ defaultContextId: OWN, proxyServer: PROXY });
}

const noRelease = (): void => undefined;

describe('remote browser CDP policy', () => {
  it('denies downloads whatever behaviour and path the client asks for', () => {
    const verdict = policy().fromClient({ id: 1, method: 'Browser.setDownloadBehavior', params: { behavior: 'allow', downloadPath: '/etc' } });
    expect(verdict).toEqual({ kind: 'forward', message: { id: 1, method: 'Browser.setDownloadBehavior', params: { behavior: 'deny', browserContextId: OWN } } });
  });

  it('puts new targets in the connection\'s own context and refuses another context', () => {
    const p = policy();
    expect(p.fromClient({ id: 1, method: 'Target.createTarget', params: { url: 'about:blank' } })).toMatchObject({ kind: 'forward', message: { params: { browserContextId: OWN } } });
    expect(p.fromClient({ id: 2, method: 'Target.createTarget', params: { url: 'about:blank', browserContextId: 'ctx-other' } })).toMatchObject({ kind: 'refuse' });
    expect(p.fromClient({ id: 3, method: 'Storage.getCookies', params: { browserContextId: 'ctx-other' } })).toMatchObject({ kind: 'refuse' });
  });

  it('forces the connection\'s egress proxy onto contexts the client creates', () => {
    const verdict = policy().fromClient({ id: 1, method: 'Target.createBrowserContext', params: { proxyServer: 'direct://' } });
    expect(verdict).toMatchObject({ kind: 'forward', message: { params: { proxyServer: PROXY, proxyBypassList: '<-loopback>', disposeOnDetach: true } } });
  });

  it('refuses host-reaching methods from any session and unknown sessions', () => {
    const p = policy();
    for (const method of ['Browser.close', 'DOM.setFileInputFiles', 'Network.loadNetworkResource', 'Tethering.bind', 'SystemInfo.getProcessInfo']) {
      expect(p.fromClient({ id: 1, method }), method).toMatchObject({ kind: 'refuse' });
    }
    expect(p.fromClient({ id: 2, method: 'Runtime.evaluate', sessionId: 'someone-elses' })).toEqual({ kind: 'refuse', reason: 'Unknown session' });
    expect(p.refusals).toBe(6);
  });

  it('refuses file:, chrome: and devtools: URLs', () => {
    const p = policy();
    for (const url of ['file:///etc/passwd', 'chrome://settings', 'devtools://devtools/x', 'view-source:http://a']) {
      expect(p.fromClient({ id: 1, method: 'Page.navigate', params: { url } }), url).toMatchObject({ kind: 'refuse' });
    }
    expect(p.fromClient({ id: 2, method: 'Page.navigate', params: { url: 'https://example.com/' } })).toMatchObject({ kind: 'forward' });
  });

  it('drops and releases other contexts\' auto-attached targets, keeps its own', () => {
    const p = policy();
    const released: string[] = [];
    const foreign = { method: 'Target.attachedToTarget', params: { sessionId: 's-foreign', targetInfo: { targetId: 't1', type: 'page', browserContextId: 'ctx-other' } } };
    expect(p.fromBrowser(foreign, (s) => released.push(s))).toBeNull();
    expect(released).toEqual(['s-foreign']);
    expect(p.fromBrowser({ method: 'Page.loadEventFired', sessionId: 's-foreign', params: {} }, noRelease)).toBeNull();
    const own = { method: 'Target.attachedToTarget', params: { sessionId: 's-own', targetInfo: { targetId: 't2', type: 'page', browserContextId: OWN } } };
    expect(p.fromBrowser(own, noRelease)).toEqual(own);
    expect(p.fromClient({ id: 5, method: 'Runtime.evaluate', sessionId: 's-own', params: {} })).toMatchObject({ kind: 'forward' });
    expect(p.fromClient({ id: 6, method: 'Target.closeTarget', params: { targetId: 't1' } })).toMatchObject({ kind: 'refuse' });
    expect(p.fromClient({ id: 7, method: 'Target.closeTarget', params: { targetId: 't2' } })).toMatchObject({ kind: 'forward' });
  });

  it('lists only its own targets', () => {
    const p = policy();
    p.fromClient({ id: 9, method: 'Target.getTargets' });
    const answer = p.fromBrowser({ id: 9, result: { targetInfos: [{ targetId: 'a', browserContextId: OWN }, { targetId: 'b', browserContextId: 'ctx-other' }, { targetId: 'c', type: 'browser' }] } }, noRelease);
    expect(answer).toEqual({ id: 9, result: { targetInfos: [{ targetId: 'a', browserContextId: OWN }] } });
  });
});
