const { createServer } = require("node:http");
const { handler } = require("../lib/handler.js");
const port = Number(process.env.PORT || 7311);
createServer(handler).listen(port);
