import { z } from 'zod';
import { storableString } from '../validation/storable.js';

/** Bounds on an `actions` workflow, checked by the gateway before anything is spent. */
export const ACTION_LIMITS = {
  maxSteps: 50,
  maxWaitMs: 30_000,
  maxStepTimeoutMs: 30_000,
  defaultStepTimeoutMs: 5_000,
  maxScriptChars: 10_000,
  maxSelectorChars: 2_000,
  maxTextChars: 10_000,
  maxScrolls: 100,
} as const;

const selector = storableString().min(1).max(ACTION_LIMITS.maxSelectorChars);
const waitMs = z.number().int().min(0).max(ACTION_LIMITS.maxWaitMs);
const text = storableString().max(ACTION_LIMITS.maxTextChars);

/** Fields every step accepts. */
const common = {
  /** `skip`: a failure of this step is recorded and the workflow goes on; `fail` ends the request. */
  on_error: z.enum(['skip', 'fail']).default('fail'),
  /** How long the step may wait for its element or condition, ms. */
  timeout: z.number().int().min(1).max(ACTION_LIMITS.maxStepTimeoutMs).optional(),
};

const step = <N extends string, T extends z.ZodRawShape>(type: N, shape: T) =>
  z.strictObject({ type: z.literal(type), ...common, ...shape });

export const ClickStepSchema = step('click', {
  selector,
  button: z.enum(['left', 'right', 'middle']).default('left'),
  click_count: z.number().int().min(1).max(3).default(1),
  /** Wait for a navigation the click starts to load before the next step. */
  wait_for_navigation: z.boolean().default(false),
});
export const FillStepSchema = step('fill', { selector, value: text });
export const TypeStepSchema = step('type', {
  selector,
  text,
  /** Pause between key strokes, ms. */
  delay: z.number().int().min(0).max(1_000).default(0),
});
export const PressStepSchema = step('press', {
  /** A key name as Playwright spells it: `Enter`, `Tab`, `ArrowDown`, `Control+A`. */
  key: storableString().min(1).max(64),
  /** Focus this element first; without it the key goes to the focused element. */
  selector: selector.optional(),
});
export const SelectStepSchema = step('select', {
  selector,
  /** Option values (or labels) to select; one string or a list for a multiple select. */
  values: z.union([text, z.array(text).min(1).max(100)]),
});
export const CheckStepSchema = step('check', { selector, checked: z.boolean().default(true) });
export const HoverStepSchema = step('hover', { selector });
export const ScrollStepSchema = step('scroll', {
  /** Scroll this element into view; exclusive with `x`/`y`/`to`. */
  selector: selector.optional(),
  /** Scroll the window by this many pixels. */
  x: z.number().int().min(-100_000).max(100_000).optional(),
  y: z.number().int().min(-100_000).max(100_000).optional(),
  /** Jump to the top or the bottom of the document. */
  to: z.enum(['top', 'bottom']).optional(),
});
export const InfiniteScrollStepSchema = step('infinite_scroll', {
  /** Stop after this many scrolls even if the page keeps growing. */
  max_scrolls: z.number().int().min(1).max(ACTION_LIMITS.maxScrolls).default(10),
  /** How long to let new content arrive after each scroll, ms. */
  delay: waitMs.default(500),
  /** Stop as soon as this selector is present (for example the last item, or an end marker). */
  stop_selector: selector.optional(),
});
export const WaitStepSchema = step('wait', { ms: waitMs });
export const WaitForStepSchema = step('wait_for', {
  selector,
  state: z.enum(['attached', 'detached', 'visible', 'hidden']).default('visible'),
});
export const WaitForLoadStepSchema = step('wait_for_load', {
  state: z.enum(['load', 'domcontentloaded', 'networkidle']).default('load'),
});
export const EvaluateStepSchema = step('evaluate', {
  /** A JavaScript expression or function body run in the page; its JSON value lands in `action_results`. */
  script: storableString().min(1).max(ACTION_LIMITS.maxScriptChars),
});
export const ScreenshotStepSchema = step('screenshot', {
  name: storableString().min(1).max(64).optional(),
  full_page: z.boolean().default(false),
  selector: selector.optional(),
  format: storableString().max(8).optional(),
  quality: z.number().int().min(0).max(100).default(0),
});

export const ActionStepSchema = z.discriminatedUnion('type', [
  ClickStepSchema,
  FillStepSchema,
  TypeStepSchema,
  PressStepSchema,
  SelectStepSchema,
  CheckStepSchema,
  HoverStepSchema,
  ScrollStepSchema,
  InfiniteScrollStepSchema,
  WaitStepSchema,
  WaitForStepSchema,
  WaitForLoadStepSchema,
  EvaluateStepSchema,
  ScreenshotStepSchema,
]);
export type ActionStep = z.infer<typeof ActionStepSchema>;
export type ActionType = ActionStep['type'];

export const ActionsSchema = z
  .array(ActionStepSchema)
  .min(1)
  .max(ACTION_LIMITS.maxSteps)
  .superRefine((steps, ctx) => {
    steps.forEach((s, index) => {
      if (s.type === 'scroll') {
        const modes = [s.selector !== undefined, s.x !== undefined || s.y !== undefined, s.to !== undefined];
        if (modes.filter(Boolean).length !== 1) {
          ctx.addIssue({
            code: 'custom',
            path: [index],
            message: 'scroll takes exactly one of selector, x/y, or to',
          });
        }
      }
      if (s.type === 'screenshot' && s.full_page && s.selector !== undefined) {
        ctx.addIssue({ code: 'custom', path: [index], message: 'full_page and selector are exclusive' });
      }
    });
    const totalWait = steps.reduce((sum, s) => sum + (s.type === 'wait' ? s.ms : 0), 0);
    if (totalWait > ACTION_LIMITS.maxWaitMs) {
      ctx.addIssue({ code: 'custom', message: `wait steps add up to more than ${ACTION_LIMITS.maxWaitMs} ms` });
    }
  });
export type Actions = z.infer<typeof ActionsSchema>;

/** Steps that need a rasteriser (chromium or camoufox, not obscura). */
export function actionsNeedScreenshot(steps: readonly ActionStep[]): boolean {
  return steps.some((s) => s.type === 'screenshot');
}
