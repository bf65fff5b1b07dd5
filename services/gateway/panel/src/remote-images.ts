import { el } from "./dom.js";

const markdownImage = /!\[([^\]\n]{0,200})\]\(\s*<?([^)\s>]{1,2000})>?(?:\s+"[^"\n]*")?\s*\)/g;

/**
 * A model's markdown image (`![alt](https://…)`) is never loaded: the text shows it as
 * `[image: alt]` and a plain link to its address follows the entry, to open only if the person
 * chooses to (no referrer). The CSP (`img-src 'self'`) would block the load anyway.
 */
export function withoutImages(text: string): { text: string; links: HTMLAnchorElement[] } {
  const links: HTMLAnchorElement[] = [];
  const replaced = text.replace(markdownImage, (_whole, alt: string, url: string) => {
    if (/^https?:\/\//i.test(url)) {
      links.push(el("a", { className: "image-link", text: `🖼 image link: ${url}`, attrs: { href: url, rel: "noopener noreferrer nofollow", target: "_blank", referrerpolicy: "no-referrer" } }));
    }
    return `[image: ${alt || "no description"}]`;
  });
  return { text: replaced, links };
}
