#!/usr/bin/env node
import { table } from "./table.js";

const rows = process.argv.slice(2).map((arg) => arg.split("="));
process.stdout.write(table(rows));
