/**
 * Class/id words and roles that mark page furniture rather than article text, in the manner of
 * trafilatura's and boilerpipe's boilerplate lists. Matched on word boundaries of class and id.
 */
export const FURNITURE_WORDS = new RegExp(
  '(?:^|[-_\\s])(' +
    [
      'comments?', 'comment-list', 'commentlist', 'disqus', 'replies', 'respond', 'discussion',
      'related', 'recommended', 'recommendations?', 'more-stories', 'more-from', 'read-more', 'readmore', 'also-read',
      'popular', 'trending', 'most-read', 'mostread', 'most-popular', 'outbrain', 'taboola', 'teasers?',
      'share', 'sharing', 'sharethis', 'social', 'socials', 'addthis', 'shariff',
      'cookies?', 'consent', 'gdpr', 'cmp', 'newsletter', 'subscribe', 'subscription', 'signup', 'paywall',
      'ads?', 'advert', 'adverts', 'advertisement', 'adsbygoogle', 'ad-slot', 'adslot', 'sponsor', 'sponsored', 'promo', 'promotion',
      'nav', 'navbar', 'navigation', 'menu', 'breadcrumbs?', 'skip-link', 'pagination', 'pager',
      'sidebar', 'side-bar', 'rail', 'widget', 'widgets', 'footer', 'masthead', 'site-header',
      'tags', 'tag-list', 'taglist', 'keywords', 'author-bio', 'byline-social', 'print', 'toolbar', 'tools',
      'popup', 'modal', 'overlay', 'banner', 'hidden', 'visually-hidden', 'sr-only',
    ].join('|') +
    ')(?:$|[-_\\s])',
  'i',
);

/** Words on a wrapper that make it a content container whatever else its class says. */
export const CONTENT_WORDS = /(?:^|[-_\s])(article|articlebody|article-body|story|story-body|post-body|entry-content|post-content|main-content|content-body|text|body)(?:$|[-_\s])/i;

/** Elements that are never article text. */
export const FURNITURE_TAGS = 'nav, aside, menu, button, select, input, textarea, label, dialog, iframe, object, embed, canvas, noscript, template, svg';

export const FURNITURE_ROLES =
  '[role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"], [role="alertdialog"], [role="menu"], [role="menubar"], [aria-hidden="true"], [hidden]';

export const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** Short lines that introduce a block of boilerplate ("Related articles", "Share this"). */
export const FURNITURE_HEADING = /^(related|recommended|more (stories|from|on|news)|read (more|next|also)|see also|you (may|might) (also )?like|popular|most (read|popular|viewed)|share( this)?|comments?|leave a (comment|reply)|tags?|advertisement|sponsored)\b/i;
