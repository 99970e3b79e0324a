// Stops at once, with one line naming the fix, when this Node.js cannot run Parley.
// Parley's TypeScript runs through Node's type stripping: on by default from Node 22.18 (and 23.6).
// Plain ES5 and CommonJS on purpose: an old Node must parse this file to print the line.
// `npm start` / `npm test` / `npm install` run it first (package.json "pre" scripts), and
// packages/server/bin/parley.js requires it before it imports any .ts file.
// PARLEY_NODE_VERSION_OVERRIDE (read here and nowhere else) fakes the version, for the test.
"use strict";

var MIN = "22.18.0";

function parse(v) {
  var parts = String(v).replace(/^v/, "").split(".");
  return [Number(parts[0]) || 0, Number(parts[1]) || 0, Number(parts[2]) || 0];
}

function supported(v) {
  var p = parse(v);
  if (p[0] === 22) return p[1] >= 18;
  if (p[0] === 23) return p[1] >= 6;
  return p[0] >= 24;
}

function check() {
  var found = process.env.PARLEY_NODE_VERSION_OVERRIDE || process.versions.node;
  if (supported(found)) return true;
  process.stderr.write(
    "parley: Node.js " +
      MIN.replace(/\.0$/, "") +
      " or newer is needed (found " +
      String(found).replace(/^v/, "") +
      "). Run: . scripts/ensure-node.sh   (installs Node 24 into a cache) and try again.\n",
  );
  process.exit(1);
  return false;
}

module.exports = { check: check, supported: supported };

if (require.main === module) check();
