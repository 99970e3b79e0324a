// The import shape of packages/server/src: no module folder imports a module that imports it back
// (directly or round a longer loop), and no file does either. This reads every source file's import
// and export-from specifiers with the TypeScript parser and fails naming every loop it finds.
//
// `import type` counts: it is erased at run time, so it cannot break start-up order, but it still
// means one module knows the other's inside, and a loop of knowledge is the knot this test forbids.
// Dynamic `import()` is not read: none names a file of this tree.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.join(import.meta.dirname, "../src");

type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

/** The relative specifiers a source text imports or re-exports from. */
function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    const spec =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
        ? statement.moduleSpecifier
        : undefined;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith(".")) found.push(spec.text);
  }
  return found;
}

/** File → the files of src it imports, as paths relative to src. */
function fileGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(SRC)) {
    const targets = new Set<string>();
    for (const spec of specifiersOf(file, fs.readFileSync(file, "utf8"))) {
      const target = path.resolve(path.dirname(file), spec);
      if (target.startsWith(SRC + path.sep))
        targets.add(path.relative(SRC, target).split(path.sep).join("/"));
    }
    graph.set(path.relative(SRC, file).split(path.sep).join("/"), targets);
  }
  return graph;
}

/** "modules/bot/repo.ts" → "bot"; files outside a module folder (modules/index.ts too) → null. */
function moduleOf(file: string): string | null {
  const parts = file.split("/");
  return parts[0] === "modules" && parts.length > 2 ? parts[1]! : null;
}

/** Module folder → the module folders its files import. */
function moduleGraph(files: Graph): Graph {
  const graph: Graph = new Map();
  for (const [file, targets] of files) {
    const from = moduleOf(file);
    if (!from) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = moduleOf(target);
      if (to && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The shortest path from `from` to `to` inside `members`, both ends included. */
function shortestPath(graph: Graph, members: Set<string>, from: string, to: string): string[] {
  const previous = new Map<string, string>();
  const queue = [from];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      if (next === to) {
        const route = [to];
        while (route[0] !== from) route.unshift(previous.get(route[0]!)!);
        return route;
      }
      queue.push(next);
    }
  }
  return [];
}

/**
 * Every loop, named: each strongly connected group (Tarjan) gives one line per member that imports
 * another member, "a → b → … → a", so a tangle of several knots shows each of them.
 */
function cyclesOf(graph: Graph): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || graph.get(node)?.has(node)) groups.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);

  const cycles = new Set<string>();
  for (const group of groups) {
    const members = new Set(group);
    for (const from of group) {
      for (const to of [...(graph.get(from) ?? [])].filter((n) => members.has(n)).sort()) {
        const back = shortestPath(graph, members, to, from);
        const loop = [from, ...back];
        // The same loop read from another member: name it once, from its smallest member.
        const start = loop.slice(0, -1).indexOf([...loop.slice(0, -1)].sort()[0]!);
        const turned = [...loop.slice(start, -1), ...loop.slice(0, start), loop[start]!];
        cycles.add(turned.join(" → "));
      }
    }
  }
  return [...cycles].sort();
}

describe("import shape", () => {
  it("finds a loop and names it", () => {
    const graph: Graph = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
      ["d", new Set(["a"])],
    ]);
    expect(cyclesOf(graph)).toEqual(["a → b → c → a"]);
    expect(specifiersOf("x.ts", 'import type { A } from "./a.ts";\nexport { b } from "../b.ts";')).toEqual([
      "./a.ts",
      "../b.ts",
    ]);
  });

  it("no module imports a module that imports it back", () => {
    expect(cyclesOf(moduleGraph(fileGraph()))).toEqual([]);
  });

  it("no file of packages/server/src imports a file that imports it back", () => {
    expect(cyclesOf(fileGraph())).toEqual([]);
  });
});
