/** Challenge and block pages per vendor, as the real vendors serve them (shortened). */
export interface ChallengePage {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const html = (title: string, inner: string): string =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body>${inner}</body></html>`;

export const CHALLENGE_PAGES: Record<string, ChallengePage> = {
  cloudflare: {
    status: 403,
    headers: { 'cf-mitigated': 'challenge', server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f-AMS' },
    body: html('Just a moment...', '<script>window._cf_chl_opt={cvId:"3",cType:"managed"};</script><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script>'),
  },
  'cloudflare-body': {
    status: 503,
    headers: { server: 'cloudflare' },
    body: html('Just a moment...', '<div id="challenge-body-text">Checking your browser</div><script>var cf_chl_opt={};</script>'),
  },
  akamai: {
    status: 403,
    headers: { server: 'AkamaiGHost' },
    body: html('Access Denied', '<H1>Access Denied</H1>You don\'t have permission to access this server.<P>Reference&#32;&#35;18&#46;1234<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;1234</P>'),
  },
  datadome: {
    status: 403,
    headers: { 'x-datadome': 'protected', 'x-dd-b': '1' },
    body: html('example.com', '<script>var dd={"rt":"c","cid":"AHrlqAAA","hsh":"ABC","t":"fe","host":"geo.captcha-delivery.com"}</script><script src="https://ct.captcha-delivery.com/c.js"></script>'),
  },
  perimeterx: {
    status: 403,
    headers: {},
    body: html('Access to this page has been denied', '<div id="px-captcha"></div><script>window._pxAppId="PXabc123";window._pxBlockedUrl="/";</script>'),
  },
  imperva: {
    status: 403,
    headers: { 'x-iinfo': '9-12345-0 NNNN CT(0 0 0) RT(1 0) q(0 0 0 -1) r(0 0) U5', 'x-cdn': 'Incapsula' },
    body: html('', '<iframe src="/_Incapsula_Resource?SWUDNSAI=31&xinfo=1"></iframe>Request unsuccessful. Incapsula incident ID: 123000'),
  },
  kasada: {
    status: 429,
    headers: { 'x-kpsdk-ct': 'abc', 'x-kpsdk-st': '1' },
    body: html('', '<script>window.KPSDK={};KPSDK.now=typeof performance!=="undefined"?performance.now:Date.now;</script><script src="/149e9513-01fa-4fb0-aad4-566afd725d1b/2d206a39-8ed7-437e-a3be-862e0f06eea3/ips.js?tkrm_alpekz_s1.3=0"></script>'),
  },
  'aws-waf': {
    status: 202,
    headers: { 'x-amzn-waf-action': 'challenge' },
    body: html('', '<script>window.awsWafCookieDomainList=[];window.gokuProps={"key":"abc"};</script><script src="https://abc.token.awswaf.com/abc/challenge.js"></script><script>AwsWafIntegration.checkForceRefresh()</script>'),
  },
  f5: {
    status: 200,
    headers: {},
    body: html('Request Rejected', 'The requested URL was rejected. Please consult with your administrator.<br><br>Your support ID is: 1234567890123456789'),
  },
  sucuri: {
    status: 403,
    headers: { server: 'Sucuri/Cloudproxy', 'x-sucuri-id': '11005', 'x-sucuri-block': 'BNP000' },
    body: html('Sucuri WebSite Firewall - Access Denied', '<h2>Access Denied - Sucuri Website Firewall</h2><a href="mailto:cloudproxy@sucuri.net">contact</a>'),
  },
  hcaptcha: {
    status: 403,
    headers: {},
    body: html('Verify you are human', '<script src="https://js.hcaptcha.com/1/api.js" async defer></script><div class="h-captcha" data-sitekey="x"></div>'),
  },
  recaptcha: {
    status: 429,
    headers: {},
    body: html('Unusual traffic', '<script src="https://www.google.com/recaptcha/api.js"></script><div class="g-recaptcha" data-sitekey="x"></div>'),
  },
};

/** Ordinary pages that carry a vendor's script or header but are not challenges. */
export const NOT_CHALLENGE_PAGES: Record<string, ChallengePage> = {
  'bare-403': { status: 403, headers: { 'content-type': 'text/html' }, body: html('Forbidden', '<h1>Forbidden</h1>') },
  'cloudflare-analytics': {
    status: 200,
    headers: { server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f-AMS' },
    body: html('Shop', '<p>Products</p><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script><script src="https://static.cloudflareinsights.com/beacon.min.js"></script>'),
  },
  'datadome-protected-ok': {
    status: 200,
    headers: { 'x-datadome': 'protected' },
    body: html('Shop', `<p>${'Catalogue '.repeat(3000)}</p><script src="https://js.datadome.co/tags.js"></script>`),
  },
  'perimeterx-sensor': {
    status: 200,
    headers: {},
    body: html('Shop', `<p>${'Item '.repeat(5000)}</p><script>window._pxAppId="PXabc123";</script><script src="//client.perimeterx.net/PXabc123/main.min.js"></script>`),
  },
  'recaptcha-contact-form': {
    status: 200,
    headers: {},
    body: html('Contact', '<form><div class="g-recaptcha" data-sitekey="x"></div></form><script src="https://www.google.com/recaptcha/api.js"></script>'),
  },
  'not-found': { status: 404, headers: {}, body: html('Not found', '<h1>Not found</h1>') },
};
