import type { EngineName } from '../protocol/engines.js';

export { HTTP_METHODS, RESPONSE_FORMATS, RESOURCE_CLASSES, SCREENSHOT_FORMATS } from './vocabulary.js';
export type { HttpMethod, ResponseFormat, ResourceClass, ScreenshotFormat } from './vocabulary.js';
export type { ScrapeParams } from './params-schema.js';

/** The engines a request may run on, in order (lib/scrape/engine-selection.ts plans it). */
export interface EnginePlan {
  /** One rung unless mode=auto (['fetch', 'obscura'], or ['obscura'] when a browser-only flag is set). */
  rungs: EngineName[];
  /** Bot-challenge rules 3 and 6: a still-challenged page may climb to camoufox. */
  climbToCamoufox: boolean;
}
