/**
 * Class/id words and roles that mark page furniture rather than article text, in the manner of
 * trafilatura's and boilerpipe's boilerplate lists. A word counts at the start or the end of a class
 * or id ("comment-body", "post-footer-comments"), not inside one: "entry-category-social_business"
 * is an article filed under a category.
 */
function wordPattern(words: string[]): RegExp {
  const alternatives = words.join('|');
  return new RegExp(`(?:^|\\s)(?:${alternatives})(?:$|[-_\\s])|(?:^|[-_\\s])(?:${alternatives})(?:$|\\s)`, 'i');
}

/** Never article text, whatever other words the class carries ("comment-body" is a comment). */
export const STRONG_FURNITURE_WORDS = wordPattern([
  'comments?', 'comment-list', 'commentlist', 'disqus', 'replies', 'respond',
  'related', 'recommended', 'recommendations?', 'more-stories', 'also-read', 'outbrain', 'taboola',
  'share', 'sharing', 'sharethis', 'social', 'addthis', 'shariff',
  'cookies?', 'consent', 'gdpr', 'cmp', 'newsletter', 'subscribe', 'signup', 'paywall',
  'ads?', 'advert', 'adverts', 'advertisement', 'adsbygoogle', 'ad-slot', 'adslot', 'sponsor', 'sponsored', 'promo',
]);

/** Elements that are never article text. */
export const FURNITURE_TAGS = 'nav, aside, menu, button, select, input, textarea, label, dialog, iframe, object, embed, canvas, noscript, template, svg';

export const FURNITURE_ROLES =
  '[role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"], [role="alertdialog"], [role="menu"], [role="menubar"], [aria-hidden="true"], [hidden]';

export const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** Short lines that introduce a block of boilerplate ("Related articles", "Share this"). */
export const FURNITURE_HEADING = /^(related|recommended|more (stories|from|on|news)|read (more|next|also)|see also|you (may|might) (also )?like|popular|most (read|popular|viewed)|share( this)?|comments?|leave a (comment|reply)|tags?|advertisement|sponsored)\b/i;

/**
 * boilerpipe's terminating blocks: a short block opening like this ends the article; it and what
 * follows it are comments, related links or the page footer.
 */
export const TERMINATING_BLOCK =
  /^(comments?\b|\d+ comments?\b|post a comment|leave a (comment|reply)|add (a |your )?comment|have your say|reader comments|related (stories|articles|links|content|news)\b|more (stories|news|articles)\b|recommended (for you|stories|articles)|you (may|might) (also )?like|(©|\(c\)|copyright\b)|all rights reserved|tags:|share this|what do you think\?|posted by\b|your (comments|views|say)\b|no comments|be the first to comment|(e-?mail|send) this (article|story|page)|printer[- ]friendly|e-?mail this to a friend|sponsored links|more headlines|do you have (any )?comments)/i;

/**
 * Box titles that end an article once its prose has begun ("More from Business", "Also in UK News",
 * "About the author", "Top Stories"), beside the terminating blocks; only at the paragraph level
 * (article-bounds.ts): in the block trim they cut one page of the collection short.
 */
export const CLOSING_BOX_TITLE =
  /^(more from\b|also in\b|other (news|stories) in\b|about the author\b|trackback|top stories\b|latest (news|headlines)\b|blog watch\b|photo galler(y|ies)\b|quick ?links\b)/i;
