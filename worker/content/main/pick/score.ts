import { innerText, isBox, linkDensity, type Box, type Context, type Flags } from './box.js';
import { classWeight, tagBase } from './weights.js';

const KEPT_NAMES = new Set(['div', 'article', 'section', 'p', 'ol', 'ul']);

function ancestorsOf(box: Box, limit = Infinity): Box[] {
  const found: Box[] = [];
  for (let node = box.parent; node && found.length < limit; node = node.parent) found.push(node);
  return found;
}

/** Readability's candidate scores: paragraphs give 1 + commas + length to five levels of ancestors. */
export function scoreCandidates(context: Context): Box[] {
  const candidates: Box[] = [];
  const units = [...context.units].sort((a, b) => a.order - b.order);
  for (const unit of units) {
    if (!unit.parent) continue;
    const length = unit.counts.chars;
    if (length < 25) continue;
    const score = 1 + (unit.counts.commas + 1) + Math.min(Math.floor(length / 100), 3);
    ancestorsOf(unit, 5).forEach((ancestor, level) => {
      if (ancestor.score === undefined) {
        ancestor.score = tagBase(ancestor.name) + classWeight(ancestor, context.flags);
        candidates.push(ancestor);
      }
      ancestor.score += score / (level === 0 ? 1 : level === 1 ? 2 : level * 3);
    });
  }
  const top: Box[] = [];
  for (const candidate of candidates) {
    candidate.score = (candidate.score ?? 0) * (1 - linkDensity(candidate.counts));
    for (let t = 0; t < 5; t += 1) {
      if (!top[t] || candidate.score > (top[t].score ?? 0)) {
        top.splice(t, 0, candidate);
        if (top.length > 5) top.pop();
        break;
      }
    }
  }
  return top;
}

function initialised(box: Box, flags: Flags): number {
  box.score ??= tagBase(box.name) + classWeight(box, flags);
  return box.score;
}

/** Readability's pick from the top candidates: a shared ancestor of close ones, a better-scoring parent, an only child's parent. */
export function topCandidate(top: Box[], root: Box, flags: Flags): Box {
  let best = top[0];
  const bestScore = best.score ?? 0;
  const alternatives = top.slice(1).filter((candidate) => (candidate.score ?? 0) / bestScore >= 0.75).map((candidate) => ancestorsOf(candidate));
  if (alternatives.length >= 3) {
    for (let parent = best.parent; parent && parent !== root; parent = parent.parent) {
      if (alternatives.filter((list) => list.includes(parent as Box)).length >= 3) {
        best = parent;
        break;
      }
    }
  }
  initialised(best, flags);
  let lastScore = best.score ?? 0;
  const threshold = lastScore / 3;
  for (let parent = best.parent; parent && parent !== root; parent = parent.parent) {
    if (parent.score === undefined) continue;
    if (parent.score < threshold) break;
    if (parent.score > lastScore) {
      best = parent;
      break;
    }
    lastScore = parent.score;
  }
  while (best.parent && best.parent !== root && best.parent.items.filter(isBox).length === 1) best = best.parent;
  initialised(best, flags);
  return best;
}

/** The top candidate and the siblings Readability joins to it (scored well, or prose paragraphs). */
export function withSiblings(best: Box): Box[] {
  const parent = best.parent;
  if (!parent) return [best];
  const threshold = Math.max(10, (best.score ?? 0) * 0.2);
  const bestClass = best.source?.attribs.class ?? '';
  const picked: Box[] = [];
  for (const sibling of parent.items.filter(isBox)) {
    let append = sibling === best;
    if (!append) {
      const bonus = bestClass !== '' && (sibling.source?.attribs.class ?? '') === bestClass ? (best.score ?? 0) * 0.2 : 0;
      if (sibling.score !== undefined && sibling.score + bonus >= threshold) append = true;
      else if (sibling.name === 'p') {
        const density = linkDensity(sibling.counts);
        const length = sibling.counts.chars;
        if (length > 80 && density < 0.25) append = true;
        else if (length < 80 && length > 0 && density === 0 && /\.( |$)/.test(innerText(sibling))) append = true;
      }
    }
    if (!append) continue;
    if (!KEPT_NAMES.has(sibling.name)) sibling.name = 'div';
    picked.push(sibling);
  }
  return picked;
}
