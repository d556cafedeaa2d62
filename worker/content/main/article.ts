import { Readability } from '@mozilla/readability';

export interface ReadabilityArticle {
  title: string;
  content: Element;
}

/** Readability's upper bound on elements; a bigger page goes to the fallback instead. */
const MAX_ELEMENTS = 60_000;

/** Mozilla Readability's scoring on the pre-cleaned page; null when it finds nothing or fails. */
export function readabilityArticle(document: Document): ReadabilityArticle | null {
  try {
    const reader = new Readability<Element>(document, {
      maxElemsToParse: MAX_ELEMENTS,
      keepClasses: true,
      charThreshold: 300,
      disableJSONLD: true,
      serializer: (node) => node as Element,
    });
    const article = reader.parse();
    if (!article?.content) return null;
    return { title: (article.title ?? '').trim(), content: article.content };
  } catch {
    return null;
  }
}
