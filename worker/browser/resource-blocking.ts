import { captureWantsImagesOrFonts, type NetworkCapture } from '../../lib/scrape/network-capture-schema.js';
import type { ResourceClass } from '../../lib/scrape/vocabulary.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';

const DEFAULT_BLOCKED: readonly ResourceClass[] = ['image', 'font'];

/**
 * Resource classes a render must not load. An explicit list replaces the default; an empty list
 * (or `none`) blocks nothing. The default (image, font) is off when pixels or fonts matter:
 * screenshot, pdf, actions, or a network capture that asks for images or fonts.
 */
export function blockedClasses(params: ScrapeParams, capture: NetworkCapture | null): Set<ResourceClass> {
  const explicit: readonly string[] | null = params.block_resources;
  if (explicit !== null) {
    return new Set(explicit.filter((c): c is ResourceClass => c !== 'none') as ResourceClass[]);
  }
  const pixelsMatter =
    params.screenshot ||
    params.response_format === 'pdf' ||
    (params.actions !== null && params.actions.length > 0) ||
    captureWantsImagesOrFonts(capture);
  return new Set(pixelsMatter ? [] : DEFAULT_BLOCKED);
}

/** Playwright's resource type -> our resource class. */
export function resourceClassOf(playwrightType: string): ResourceClass {
  switch (playwrightType) {
    case 'document':
    case 'stylesheet':
    case 'image':
    case 'media':
    case 'font':
    case 'script':
    case 'xhr':
    case 'fetch':
    case 'websocket':
      return playwrightType;
    case 'texttrack':
      return 'media';
    default:
      return 'other';
  }
}
