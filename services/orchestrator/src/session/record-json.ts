import { jsonForScreen, screenSafeJson } from "@aide/contracts";
import type { SessionRecord } from "./session-record.js";

/**
 * The screen-safe JSON of each transcript message, kept per message object with the field values
 * it was made from. Messages are appended, and now and then one is edited (a notice or warning
 * added to the last one): an entry is used only while the message's own keys and values are the
 * very same, so an edit is always encoded anew.
 */
interface Encoded {
  keys: string[];
  values: unknown[];
  json: string;
}
const messageJson = new WeakMap<object, Encoded>();

function sameFields(encoded: Encoded, keys: string[], values: unknown[]): boolean {
  if (encoded.keys.length !== keys.length) return false;
  for (let index = 0; index < keys.length; index += 1) {
    if (encoded.keys[index] !== keys[index] || encoded.values[index] !== values[index]) return false;
  }
  return true;
}

function messageText(message: object): string {
  const keys = Object.keys(message);
  const values = keys.map((key) => (message as Record<string, unknown>)[key]);
  // A field holding an object or array (native tool calls) could change inside: never kept.
  if (values.some((value) => value !== null && typeof value === "object")) return screenSafeJson(message);
  const known = messageJson.get(message);
  if (known !== undefined && sameFields(known, keys, values)) return known.json;
  const json = screenSafeJson(message);
  messageJson.set(message, { keys, values, json });
  return json;
}

/** Long string fields (the run's system prompt): their JSON kept per record and field while the string is the same. */
const longString = 256;
const stringJson = new WeakMap<object, Map<string, { value: string; json: string }>>();

function stringText(record: object, key: string, value: string): string {
  let fields = stringJson.get(record);
  if (fields === undefined) {
    fields = new Map();
    stringJson.set(record, fields);
  }
  const known = fields.get(key);
  if (known !== undefined && known.value === value) return known.json;
  const json = screenSafeJson(value);
  fields.set(key, { value, json });
  return json;
}

/**
 * Exactly `screenSafeJson(record)` (same text, so the same bytes in the store), assembled field by
 * field with the transcript's messages taken from `messageJson`: a session write no longer
 * re-serializes and re-scans every earlier message of the run. `jsonForScreen` replaces characters
 * one by one, so applying it to the parts gives the same text as applying it to the whole.
 */
export function recordJson(record: SessionRecord): string {
  const parts: string[] = [];
  for (const key of Object.keys(record)) {
    const value = (record as unknown as Record<string, unknown>)[key];
    if (key === "transcript" && Array.isArray(value)) {
      const messages = value.map((message: unknown) => (message !== null && typeof message === "object" ? messageText(message) : screenSafeJson(message) || "null"));
      parts.push(`${screenSafeJson(key)}:[${messages.join(",")}]`);
      continue;
    }
    if (typeof value === "string" && value.length >= longString) {
      parts.push(`${screenSafeJson(key)}:${stringText(record, key, value)}`);
      continue;
    }
    const json = JSON.stringify(value) as string | undefined;
    // JSON.stringify leaves out a key whose value is undefined (or a function): so does this.
    if (json !== undefined) parts.push(`${screenSafeJson(key)}:${jsonForScreen(json)}`);
  }
  return `{${parts.join(",")}}`;
}
