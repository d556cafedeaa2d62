/** What a challenge rule looks at. Header names are lower-case. */
export interface ChallengeInput {
  status: number;
  headers: Record<string, string>;
  body: string;
  url: string;
}

/**
 * `blocking`: the response status must be a refusal (403, 405, 406, 429, 503).
 * `interstitial`: a refusal status, or a small body (a vendor interstitial, often served with 200/202).
 * `any`: the marker alone is conclusive.
 */
export type RuleContext = 'blocking' | 'interstitial' | 'any';

export interface ChallengeRule {
  name: string;
  vendor: string;
  /** What was seen, for `blocked.signal`. */
  signal: string;
  context: RuleContext;
  header?: { name: string; value: RegExp };
  body?: RegExp;
}

export const BLOCKING_STATUSES = new Set([403, 405, 406, 429, 503]);
export const INTERSTITIAL_MAX_CHARS = 16 * 1024;

/** Markers are challenge-specific: vendor analytics or sensor scripts on ordinary pages do not match. */
export const CHALLENGE_RULES: readonly ChallengeRule[] = [
  { name: 'cloudflare-mitigated-header', vendor: 'cloudflare', signal: 'header cf-mitigated: challenge', context: 'any', header: { name: 'cf-mitigated', value: /challenge/i } },
  { name: 'cloudflare-challenge-page', vendor: 'cloudflare', signal: 'challenge-platform interstitial', context: 'blocking', body: /cf_chl_opt|\/cdn-cgi\/challenge-platform\/h\/|<title>Just a moment\.\.\.<\/title>|cf-browser-verification/i },
  { name: 'cloudflare-block-page', vendor: 'cloudflare', signal: 'Cloudflare block page', context: 'blocking', body: /Attention Required! \| Cloudflare|id="cf-error-details"|cf-error-code/i },
  { name: 'vercel-mitigated-header', vendor: 'vercel', signal: 'header x-vercel-mitigated: challenge', context: 'any', header: { name: 'x-vercel-mitigated', value: /challenge/i } },
  { name: 'akamai-interstitial', vendor: 'akamai', signal: 'Bot Manager interstitial (sec-cpt / bm-verify)', context: 'interstitial', body: /\/_sec\/cp_challenge\/|sec-if-cpt-container|"bm-verify"|name="bm-verify"/i },
  { name: 'akamai-access-denied', vendor: 'akamai', signal: 'Akamai edge Access Denied page', context: 'blocking', body: /errors\.edgesuite\.net|<H1>Access Denied<\/H1>[\s\S]*Reference&#32;&#35;/i },
  { name: 'datadome-header', vendor: 'datadome', signal: 'x-datadome header on a refusal', context: 'blocking', header: { name: 'x-datadome', value: /./ } },
  { name: 'datadome-captcha', vendor: 'datadome', signal: 'captcha-delivery.com interstitial', context: 'interstitial', body: /captcha-delivery\.com|var dd=\{['"]?rt['"]?:/i },
  { name: 'perimeterx-captcha', vendor: 'perimeterx', signal: 'HUMAN/PerimeterX press-and-hold captcha', context: 'interstitial', body: /px-captcha|_pxCaptcha|window\._pxBlockedUrl|captcha\.px-cdn\.net/i },
  { name: 'imperva-incident', vendor: 'imperva', signal: 'Incapsula incident page', context: 'interstitial', body: /Incapsula incident ID|_Incapsula_Resource\?SWUDNSAI|Request unsuccessful\. Incapsula/i },
  { name: 'imperva-iinfo-refusal', vendor: 'imperva', signal: 'x-iinfo header on a refusal', context: 'blocking', header: { name: 'x-iinfo', value: /./ } },
  { name: 'kasada-header', vendor: 'kasada', signal: 'x-kpsdk header on a refusal', context: 'blocking', header: { name: 'x-kpsdk-ct', value: /./ } },
  { name: 'kasada-ips', vendor: 'kasada', signal: 'Kasada ips.js interstitial', context: 'blocking', body: /KPSDK|\/ips\.js\?/ },
  { name: 'aws-waf-action', vendor: 'aws-waf', signal: 'header x-amzn-waf-action', context: 'any', header: { name: 'x-amzn-waf-action', value: /challenge|captcha/i } },
  { name: 'aws-waf-interstitial', vendor: 'aws-waf', signal: 'AWS WAF challenge.js interstitial', context: 'interstitial', body: /AwsWafIntegration|awsWafCookieDomainList|aws-waf-token|\.token\.awswaf\.com/i },
  { name: 'f5-asm-rejected', vendor: 'f5', signal: 'F5 ASM "requested URL was rejected" page', context: 'interstitial', body: /The requested URL was rejected\. Please consult with your administrator\.[\s\S]*support ID/i },
  { name: 'shape-interstitial', vendor: 'f5-shape', signal: 'Shape/F5 Distributed Cloud interstitial', context: 'blocking', body: /istlWasHere|_imp_apg_r_|shapesecurity/i },
  { name: 'sucuri-firewall', vendor: 'sucuri', signal: 'Sucuri WebSite Firewall page', context: 'interstitial', body: /Sucuri WebSite Firewall|sucuri_cloudproxy_js|cloudproxy@sucuri\.net/i },
  { name: 'ddos-guard', vendor: 'ddos-guard', signal: 'DDoS-Guard check page', context: 'blocking', body: /ddos-guard\.net\/|DDoS-Guard/ },
  { name: 'hcaptcha-interstitial', vendor: 'hcaptcha', signal: 'hCaptcha on a refusal page', context: 'blocking', body: /hcaptcha\.com\/1\/api\.js|class="h-captcha"/i },
  { name: 'recaptcha-interstitial', vendor: 'recaptcha', signal: 'reCAPTCHA on a refusal page', context: 'blocking', body: /google\.com\/recaptcha\/api\.js|class="g-recaptcha"/i },
];
