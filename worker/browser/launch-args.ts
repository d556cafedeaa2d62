/**
 * Chromium flags for every pooled browser. The machine has no route to the internet and every
 * page connection must go through the egress guard, so anything the browser would do on its own
 * (updates, sync, metrics, QUIC, WebRTC UDP) is switched off.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-domain-reliability',
  '--disable-breakpad',
  '--no-pings',
  '--metrics-recording-only',
  '--mute-audio',
  '--password-store=basic',
  '--use-mock-keychain',
  // Loopback is proxied too, so the guard sees (and refuses) 127.0.0.2 and friends.
  '--proxy-bypass-list=<-loopback>',
  // WebRTC would otherwise send UDP straight to any address a page names.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * Browser-wide proxy for anything outside a request's context: a closed loopback port, so traffic
 * that somehow escapes the per-context guard proxy fails closed instead of going direct.
 */
export const FAIL_CLOSED_PROXY = 'http://127.0.0.1:9';

/** A tag in the command line so operators (and tests) can find our browsers with `pgrep -f`. */
export function markerArg(marker: string): string {
  return `--trawler-browser=${marker}`;
}

export const VIEWPORT_HEADLESS = { width: 800, height: 600 } as const;
export const VIEWPORT_HEADFUL = { width: 1920, height: 1080 } as const;
