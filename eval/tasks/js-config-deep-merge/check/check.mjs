import assert from "node:assert/strict";
const { loadConfig, defaults } = await import(`${process.cwd()}/src/config.js`);
assert.deepEqual(loadConfig({ server: { port: 9000 } }), { server: { host: "127.0.0.1", port: 9000 }, log: { level: "info", pretty: false } });
assert.deepEqual(loadConfig({ log: { pretty: true }, extra: 1 }).log, { level: "info", pretty: true });
assert.equal(loadConfig({ extra: 1 }).extra, 1);
assert.deepEqual(loadConfig(), defaults);
loadConfig({ server: { port: 1 } });
assert.equal(defaults.server.port, 8080, "defaults are not changed");
