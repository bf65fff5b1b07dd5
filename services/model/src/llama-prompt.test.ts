import { describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import { alignWithCache, type TokenCodec } from "./llama-prompt.js";

/** A toy vocabulary where one text has several tokenizations (like a real BPE/SentencePiece). */
const vocab = ["<s>", "[U]", "[A]", "</s>", "he", "llo", "hel", "lo", " ", "world", " world", "!", "next", "?", "x"];
const codec: TokenCodec = {
  detokenize: (tokens) => tokens.map((t) => vocab[t as number]).join(""),
  tokenize: (text) => {
    const out: Token[] = [];
    let rest = text;
    while (rest.length > 0) {
      const index = [...vocab.keys()].sort((a, b) => vocab[b].length - vocab[a].length).find((i) => rest.startsWith(vocab[i]));
      if (index === undefined) throw new Error(`cannot tokenize ${rest}`);
      out.push(index as Token);
      rest = rest.slice(vocab[index].length);
    }
    return out;
  },
};
const t = (...words: string[]) => words.map((w) => vocab.indexOf(w) as Token);

describe("alignWithCache", () => {
  it("returns the new prompt when it extends the cache token for token", () => {
    expect(alignWithCache(t("<s>", "[U]", "he"), t("<s>", "[U]", "he", "llo"), codec)).toEqual(t("<s>", "[U]", "he", "llo"));
  });

  it("keeps a sampled reply whose text the new prompt repeats with other tokens", () => {
    // The model sampled "hel"+"lo"+" "+"world"; the prompt re-tokenizes the reply as "he"+"llo"+" world".
    const cached = t("<s>", "[U]", "x", "[A]", "hel", "lo", " ", "world");
    const wanted = t("<s>", "[U]", "x", "[A]", "he", "llo", " world", "</s>", "[U]", "next", "[A]");
    const aligned = alignWithCache(cached, wanted, codec);
    expect(aligned).toEqual([...cached, ...t("</s>", "[U]", "next", "[A]")]);
  });

  it("drops a cached trailing token the template trimmed, and nothing before it", () => {
    const cached = t("<s>", "[U]", "x", "[A]", "hel", "lo", " ");
    const wanted = t("<s>", "[U]", "x", "[A]", "he", "llo", "</s>", "[U]", "next", "[A]");
    expect(alignWithCache(cached, wanted, codec)).toEqual([...t("<s>", "[U]", "x", "[A]", "hel", "lo"), ...t("</s>", "[U]", "next", "[A]")]);
  });

  it("falls back to the new prompt when the history was edited", () => {
    const cached = t("<s>", "[U]", "x", "[A]", "hel", "lo");
    const wanted = t("<s>", "[U]", "?", "[A]", "he", "llo");
    expect(alignWithCache(cached, wanted, codec)).toEqual(wanted);
  });
});
