import { z } from 'zod';

export const ENGINE_NAMES = ['fetch', 'obscura', 'chromium', 'camoufox'] as const;
export const EngineNameSchema = z.enum(ENGINE_NAMES);
export type EngineName = z.infer<typeof EngineNameSchema>;

/** Engines this build can run (worker processes, operator Deployments); camoufox is a known name, not deployable yet. */
export const DEPLOYABLE_ENGINES: readonly EngineName[] = ['fetch', 'obscura', 'chromium'];

/** Engines that render with a browser. */
export const RENDER_ENGINES: readonly EngineName[] = ['obscura', 'chromium', 'camoufox'];
