// The `parley` command. Every command prints exactly one line of JSON on stdout; errors go to stderr
// with a non-zero exit code. All commands honour DATA_DIR and DATABASE_URL.
import { parseArgs } from "node:util";
import { buildApp } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import {
  AppCaches,
  type AppContext,
  accountCreatedHooks,
  type CliCommand,
  contactErasedHooks,
  humanReplyHooks,
} from "./context.ts";
import { MODULES } from "./modules/index.ts";
import { openDatabase } from "./platform/db/index.ts";
import { AppError } from "./platform/errors.ts";
import { startHttpRefuser } from "./platform/http/refuser.ts";
import { JobWorker } from "./platform/jobs.ts";
import { inProcessLive } from "./platform/live.ts";
import { createLogger } from "./platform/logging.ts";
import { browsable, linkBase, setupNotice } from "./platform/public-url.ts";
import { createSafeFetcher } from "./platform/safe-fetch.ts";
import { openStorage } from "./platform/storage.ts";
import { loadTls } from "./platform/tls.ts";

const USAGE = `Usage: parley <command> [options]

  serve [--no-worker]          start the HTTPS API (and the job worker unless --no-worker)
  worker                       run the job worker alone
  migrate                      apply database migrations
${MODULES.flatMap((m) => Object.entries(m.commands ?? {}).map(([name, c]) => `  ${name.padEnd(28)} ${c.summary}`)).join("\n")}
`;

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function fail(message: string, code = 1): never {
  process.stderr.write(`parley: ${message}\n`);
  process.exit(code);
}

async function serve(config: Config, withWorker: boolean): Promise<void> {
  const tls = await loadTls(config);
  const parley = await buildApp(config, { tls });
  const { app, worker } = parley;
  await app.listen({ host: config.host, port: config.port });
  const refuser = config.httpPort !== null ? await startHttpRefuser(config.host, config.httpPort) : null;
  if (withWorker) worker.start();
  app.log.info(
    {
      port: config.port,
      httpPort: config.httpPort,
      worker: withWorker,
      database: parley.db.dialect,
      selfSigned: tls.selfSigned,
    },
    "parley is serving",
  );
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  // A fresh install: the one-time link to onboard from a browser that is not on this server, built
  // from PUBLIC_URL when it is set (else this server's own address).
  const setupUrl = parley.ctx.setup.token
    ? `${linkBase(config, undefined, port)}/onboarding?setupToken=${parley.ctx.setup.token}`
    : null;
  if (setupUrl) {
    app.log.info(
      { setupUrl },
      "no account yet: open the setup link (or browse from this machine) to create the first one",
    );
  }
  print({
    status: "serving",
    url: `https://${browsable(config.host)}:${port}`,
    worker: withWorker,
    ...(setupUrl ? { setupUrl } : {}),
  });
  // On a terminal the link is also one plain line, not only inside JSON.
  const notice = setupUrl ? setupNotice(setupUrl, process.stdout.isTTY) : null;
  if (notice) process.stderr.write(notice);
  onShutdown(async () => {
    await refuser?.close();
    await parley.close();
  }, app.log);
}

async function runWorker(config: Config): Promise<void> {
  // The worker process needs the modules' job handlers but no HTTP listener.
  const parley = await buildApp(config);
  parley.worker.start();
  print({ status: "working", types: parley.worker.types });
  onShutdown(() => parley.close(), parley.app.log);
}

function onShutdown(
  close: () => Promise<void>,
  log: { info(o: object, m: string): void; error(o: object, m: string): void },
): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: finishing in-flight requests and jobs");
    close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

async function main(argv: string[]): Promise<void> {
  const config = loadConfig();
  const [first, second] = argv;
  if (!first || first === "help" || first === "--help") {
    process.stdout.write(USAGE);
    return;
  }
  if (first === "serve") {
    const { values } = parseArgs({
      args: argv.slice(1),
      options: { "no-worker": { type: "boolean" } },
      strict: true,
    });
    return serve(config, !values["no-worker"]);
  }
  if (first === "worker") return runWorker(config);
  if (first === "migrate") {
    const db = openDatabase(config);
    try {
      const applied = await db.migrate();
      print({ applied, database: db.dialect });
    } finally {
      await db.close();
    }
    return;
  }
  const commands = new Map<string, CliCommand>();
  for (const mod of MODULES)
    for (const [name, cmd] of Object.entries(mod.commands ?? {})) commands.set(name, cmd);
  const name = `${first} ${second ?? ""}`.trim();
  // "noun verb" commands, then one-word ones (`parley backup --out FILE`).
  const twoWords = commands.get(name);
  const command = twoWords ?? commands.get(first);
  if (!command) fail(`unknown command "${name}"\n\n${USAGE}`, 2);
  const args = argv.slice(twoWords ? 2 : 1);
  const parsed = parseArgs({
    args,
    options: command.options,
    strict: true,
    allowPositionals: command.positional !== undefined,
  });
  const values: Record<string, string | boolean | undefined> = { ...parsed.values };
  if (command.positional) {
    if (parsed.positionals.length > 1) fail(`one ${command.positional} only`, 2);
    values[command.positional] = parsed.positionals[0];
  }
  if (command.withoutDatabase) {
    print(
      await command.run(values as Record<string, string | boolean | undefined>, { config } as AppContext),
    );
    return;
  }
  const db = openDatabase(config);
  try {
    await db.migrate();
    const log = createLogger("silent");
    // Commands that enqueue jobs wake nothing here: a running worker polls the jobs table.
    const worker = new JobWorker({ db, log });
    const caches = new AppCaches();
    const fetcher = createSafeFetcher({ allowCidrs: config.outboundAllowCidrs });
    const storage = await openStorage(config);
    try {
      print(
        await command.run(values as Record<string, string | boolean | undefined>, {
          config,
          db,
          worker,
          log,
          fetcher,
          storage,
          onAccountCreated: accountCreatedHooks(MODULES),
          onHumanReply: humanReplyHooks(MODULES),
          onContactErased: contactErasedHooks(MODULES),
          caches,
          // Commands publish nothing a browser waits for; the setup token belongs to `serve`.
          live: inProcessLive(),
          setup: { token: null },
        }),
      );
    } finally {
      caches.clear();
      await fetcher.close();
      await storage.close();
    }
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof AppError) fail(err.message);
  if (err instanceof TypeError && (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))
    fail(err.message, 2);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
