/** The closed value lists of the scrape parameters (docs/parameters.md). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const RESPONSE_FORMATS = ['html', 'markdown', 'text', 'pdf', 'json'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

export const RESOURCE_CLASSES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'xhr',
  'fetch',
  'websocket',
  'other',
] as const;
export type ResourceClass = (typeof RESOURCE_CLASSES)[number];

export const SCREENSHOT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type ScreenshotFormat = (typeof SCREENSHOT_FORMATS)[number];
