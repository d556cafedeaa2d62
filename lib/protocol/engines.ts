import { z } from 'zod';

export const ENGINE_NAMES = ['fetch', 'obscura', 'chromium', 'camoufox'] as const;
export const EngineNameSchema = z.enum(ENGINE_NAMES);
export type EngineName = z.infer<typeof EngineNameSchema>;

/** Engines that render with a browser. */
export const RENDER_ENGINES: readonly EngineName[] = ['obscura', 'chromium', 'camoufox'];
