import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { ExtractRules, FieldRule, ValueRule } from '../../lib/extract/extract-rules.js';
import { coerce } from './coerce.js';
import { flatText } from './document.js';
import { collapseWhitespace } from './whitespace.js';
import { markHtmlNamespace } from './html-namespace.js';
import { CONTENT_LIMITS } from './content-limits.js';

export interface ExtractResult {
  data: Record<string, unknown>;
  /** Paths of rules that matched nothing: `price`, `product.name`, `items[].sku`. */
  emptyFields: string[];
}

type Scope = Cheerio<AnyNode>;

class Extractor {
  readonly empty = new Set<string>();

  constructor(private readonly $: CheerioAPI) {}

  fields(fields: FieldRule[], scope: Scope, path: string): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const { name, rule } of fields) {
      const fieldPath = path ? `${path}.${name}` : name;
      result[name] = rule.kind === 'value' ? this.value(rule, scope, fieldPath) : this.object(rule, scope, fieldPath);
    }
    return result;
  }

  private matches(selector: string, scope: Scope, list: boolean): Element[] {
    const found = scope.find(selector);
    return (list ? found.slice(0, CONTENT_LIMITS.maxListValues) : found.first()).toArray();
  }

  private value(rule: ValueRule, scope: Scope, path: string): unknown {
    const elements = this.matches(rule.selector, scope, rule.list);
    const values = elements.map((element) => this.read(rule, element)).filter((v): v is string => v !== null);
    if (values.length === 0) this.empty.add(path);
    const coerced = values.map((value) => coerce(value, rule.cast));
    return rule.list ? coerced : (coerced[0] ?? null);
  }

  private read(rule: ValueRule, element: Element): string | null {
    switch (rule.output.kind) {
      case 'text':
        return collapseWhitespace(flatText(element));
      case 'html':
        markHtmlNamespace([element]);
        return this.$.html(element);
      case 'inner_html':
        markHtmlNamespace([element]);
        return this.$(element).html() ?? '';
      case 'attr':
        return element.attribs[rule.output.name] ?? null;
    }
  }

  private object(rule: Extract<FieldRule['rule'], { kind: 'object' }>, scope: Scope, path: string): unknown {
    if (rule.selector === null) return this.fields(rule.fields, scope, path);
    const elements = this.matches(rule.selector, scope, rule.list);
    if (elements.length === 0) this.empty.add(path);
    const itemPath = rule.list ? `${path}[]` : path;
    const objects = elements.map((element) => this.fields(rule.fields, this.$(element), itemPath));
    return rule.list ? objects : (objects[0] ?? null);
  }
}

/** Applies validated rules to the whole document (before any main-content cleaning). */
export function runExtraction($: CheerioAPI, rules: ExtractRules): ExtractResult {
  const extractor = new Extractor($);
  const data = extractor.fields(rules.fields, $.root(), '');
  return { data, emptyFields: [...extractor.empty] };
}
