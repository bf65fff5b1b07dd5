import { escapedCount, renderUntrusted } from "@aide/contracts";

/**
 * Letters of other scripts that a reviewer reads as Latin ones (Cyrillic and Greek homoglyphs of
 * the letters that make up file names). Not the whole Unicode confusables table: the ones that
 * render identically in common fonts.
 */
const latinLookAlikes: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  һ: "h",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  ѕ: "s",
  т: "t",
  у: "y",
  х: "x",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ӏ: "l",
  А: "A",
  В: "B",
  Е: "E",
  З: "3",
  І: "I",
  Ј: "J",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Ѕ: "S",
  Т: "T",
  У: "Y",
  Х: "X",
  Ԁ: "D",
  Ԛ: "Q",
  Ԝ: "W",
  Ӏ: "I",
  // Greek
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ϲ: "c",
  ϳ: "j",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
};

const invisibleCharacters = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF\u{E0000}-\u{E007F}]/gu;

/**
 * What a path reads as: NFKC (fullwidth and other compatibility forms folded), invisible and
 * format characters removed, Cyrillic and Greek look-alikes mapped to Latin. Only for deciding
 * whether a name poses as a protected one; never used to open anything.
 */
export function pathSkeleton(path: string): string {
  const folded = path.normalize("NFKC").replace(invisibleCharacters, "");
  let skeleton = "";
  for (const char of folded) skeleton += latinLookAlikes[char] ?? char;
  return skeleton;
}

function scriptsOf(name: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of name) {
    if (/\p{Script=Latin}/u.test(char)) scripts.add("Latin");
    else if (/\p{Script=Cyrillic}/u.test(char)) scripts.add("Cyrillic");
    else if (/\p{Script=Greek}/u.test(char)) scripts.add("Greek");
  }
  return scripts;
}

/**
 * Why one path component could deceive a reviewer, or undefined: a word (between `.`, `-`, `_`,
 * spaces) mixing Latin with Cyrillic or Greek letters (`.gіt`; a Russian `отчет.txt` is fine),
 * invisible, bidi or control characters, a form other than NFC (a decomposed `é`), compatibility
 * forms (fullwidth letters), or a name
 * whose non-Latin letters are all look-alikes, so that it reads as a Latin name.
 */
export function confusableComponent(name: string): string | undefined {
  if (escapedCount(renderUntrusted(name, { target: "screen" })) > 0) return "has invisible, bidi or control characters";
  for (const word of name.split(/[.\-_\s]+/)) {
    const scripts = scriptsOf(word);
    if (scripts.size > 1) return `mixes ${[...scripts].join(" and ")} letters in "${word}"`;
  }
  // A decomposed `cafe\u0301.txt` looks like the composed `café.txt`, and both can exist side by side.
  if (name !== name.normalize("NFC")) return "is not in composed (NFC) form: it looks like the composed name, a different file";
  if (name.normalize("NFKC") !== name.normalize("NFC")) return "uses compatibility forms (such as fullwidth letters) that read as other characters";
  const scripts = scriptsOf(name);
  if ((scripts.has("Cyrillic") || scripts.has("Greek")) && /^[\x20-\x7e]+$/.test(pathSkeleton(name))) return `is made of look-alike letters that read as "${pathSkeleton(name)}"`;
  return undefined;
}

/** The first deceptive component of a path with the reason, or undefined. */
export function confusablePath(path: string): { component: string; why: string } | undefined {
  for (const component of path.split("/")) {
    const why = confusableComponent(component);
    if (why !== undefined) return { component, why };
  }
  return undefined;
}
