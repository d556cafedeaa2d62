import type TurndownService from 'turndown';

type Rule = TurndownService.Rule;

const MAX_NAMES_KEPT = 512;

/** What turndown's Rules keeps beside its public surface: the rules forNode tries, in its order. */
interface RuleLists {
  array: Rule[];
  _keep: Rule[];
  _remove: Rule[];
  blankRule: Rule;
  defaultRule: Rule;
  options: TurndownService.Options;
  forNode(node: HTMLElement): Rule;
}

/**
 * turndown's `forNode` tries every rule's filter, in order, for every element, and lowercases the
 * element's name again for each named filter. This one gives the same rule from the rules that can
 * match the element's name, kept per name: those whose filter names it and every function filter
 * (which may read anything), in turndown's order (added rules, then kept, then removed), a blank
 * element's rule and the default one as before. Call it once every rule is added.
 */
export function indexRulesByName(service: TurndownService): void {
  const rules = service.rules as unknown as RuleLists;
  const ordered = [...rules.array, ...rules._keep, ...rules._remove];
  const byName = new Map<string, Rule[]>();

  const candidatesFor = (nodeName: string): Rule[] => {
    const name = nodeName.toLowerCase();
    const candidates = ordered.filter(({ filter }) => (typeof filter === 'string' ? filter === name : Array.isArray(filter) ? (filter as string[]).includes(name) : true));
    // The converter lives as long as its thread: pages of made-up element names must not grow it without end.
    if (byName.size >= MAX_NAMES_KEPT) byName.clear();
    byName.set(nodeName, candidates);
    return candidates;
  };

  rules.forNode = (node) => {
    if ((node as HTMLElement & { isBlank: boolean }).isBlank) return rules.blankRule;
    for (const rule of byName.get(node.nodeName) ?? candidatesFor(node.nodeName)) {
      if (typeof rule.filter !== 'function' || rule.filter.call(rule, node, rules.options)) return rule;
    }
    return rules.defaultRule;
  };
}
