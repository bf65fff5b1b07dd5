// The definition lives in render-untrusted.ts, which must stay a module without imports (the web
// panel loads it as it is); the rest of the code imports it from here.
export { mapEntries } from "./render-untrusted.js";
