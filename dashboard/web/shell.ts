import { ApiError } from './api.js';
import { h } from './dom.js';

export interface OrgSummary {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  role: 'owner' | 'admin' | 'member';
}

export interface Me {
  user: { id: string; email: string };
  csrf_token: string;
  organizations: OrgSummary[];
}

export interface PageContext {
  me: Me;
  org: OrgSummary;
  /** Route parts after the page name. */
  params: string[];
  navigate(hash: string): void;
  refreshMe(): Promise<void>;
  /** Registers a timer cleared when the page changes (live progress). */
  every(ms: number, run: () => void): void;
}

export type Page = (context: PageContext) => Promise<HTMLElement>;

/** Shows a problem as the API gave it: its code, then its detail. */
export function problemBox(error: unknown): HTMLElement {
  if (error instanceof ApiError) {
    return h('div', { class: 'alert', role: 'alert' }, h('strong', {}, error.problem.code), error.problem.detail ? ` — ${error.problem.detail}` : '');
  }
  return h('div', { class: 'alert', role: 'alert' }, error instanceof Error ? error.message : String(error));
}

/** Runs an action, disabling its button meanwhile; an error lands in `slot`. */
export async function act(slot: HTMLElement, run: () => Promise<void>, button?: HTMLButtonElement): Promise<void> {
  slot.replaceChildren();
  if (button) button.disabled = true;
  try {
    await run();
  } catch (error) {
    slot.replaceChildren(problemBox(error));
  } finally {
    if (button) button.disabled = false;
  }
}

export function section(title: string, ...children: Array<Node | null>): HTMLElement {
  return h('section', { class: 'card' }, h('h2', {}, title), ...children);
}

export const canAdmin = (org: OrgSummary) => org.role === 'owner' || org.role === 'admin';

/** A form whose submit runs `run` through `act` (errors into `slot`, `button` disabled meanwhile). */
export function actionForm(attrs: Record<string, string>, slot: HTMLElement, button: HTMLButtonElement, run: () => Promise<void>, ...children: Array<Node | null>): HTMLFormElement {
  const form = h('form', attrs, ...children);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(slot, run, button);
  });
  return form;
}
