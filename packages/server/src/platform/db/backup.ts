// Online backup and restore of the embedded SQLite database (`parley backup`, `parley restore`).
// PostgreSQL has its own tools for both (pg_dump / pg_restore); see docs/reliability.md.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { AppError } from "../errors.ts";

export const SQLITE_FILE = "parley.sqlite";

export interface BackupResult {
  backup: string;
  bytes: number;
  pages: number;
}

export interface RestoreResult {
  restored: string;
  from: string;
  bytes: number;
  /** The database that was replaced, kept beside it; null when there was none. */
  previous: string | null;
}

function integrityCheck(file: string): string {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma("integrity_check") as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join("; ");
  } finally {
    db.close();
  }
}

function fsyncPath(p: string): void {
  const fd = fs.openSync(p, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Copies the live database at DATA_DIR/parley.sqlite to `out` with SQLite's online backup API, from a
 * read-only connection of its own, while `parley serve` keeps writing. All pages are copied in one
 * step inside one read transaction, so the copy is the database as of one commit (a copy made page by
 * page would restart whenever the server commits in between, forever under steady traffic). The
 * copy is written beside `out`, checked (PRAGMA integrity_check), fsynced and then renamed into place:
 * `out` is either a complete, checked backup or not there.
 */
export async function backupSqlite(dataDir: string, out: string): Promise<BackupResult> {
  const source = path.join(dataDir, SQLITE_FILE);
  if (!fs.existsSync(source)) throw new AppError("VALIDATION_ERROR", `no database at ${source}`);
  const target = path.resolve(out);
  if (target === path.resolve(source)) throw new AppError("VALIDATION_ERROR", "--out is the live database");
  const partial = `${target}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  let pages: number;
  try {
    db.pragma("busy_timeout = 10000");
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    pages = progress.totalPages;
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
  // A backup is one self-contained file: rollback journal, no -wal or -shm beside it (the server
  // turns WAL back on when it opens a restored copy).
  const copy = new SQLite(partial, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
  const check = integrityCheck(partial);
  if (check !== "ok") {
    fs.rmSync(partial, { force: true });
    throw new AppError("VALIDATION_ERROR", `the copy failed its integrity check: ${check}`);
  }
  fsyncPath(partial);
  fs.renameSync(partial, target);
  fsyncPath(path.dirname(target));
  return { backup: target, bytes: fs.statSync(target).size, pages };
}

/**
 * True when another connection has the database open. In WAL mode every connection holds a shared
 * lock on the -shm file's "DMS" byte while it is open; a connection in exclusive locking mode needs
 * the database to itself and fails with SQLITE_BUSY when any other process has it open.
 */
function inUse(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const db = new SQLite(file, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE; COMMIT");
    return false;
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
    throw err;
  } finally {
    db.close();
  }
}

/**
 * Puts a backup in place of DATA_DIR/parley.sqlite. Refuses when the backup fails PRAGMA
 * integrity_check or when the current database is open in another process (stop `parley serve` and
 * every worker first). The backup is copied beside the target, fsynced and renamed over it, so the
 * swap is atomic; the replaced database is kept as parley.sqlite.before-restore (its -wal too).
 */
export function restoreSqlite(dataDir: string, from: string): RestoreResult {
  const backup = path.resolve(from);
  if (!fs.existsSync(backup)) throw new AppError("VALIDATION_ERROR", `no backup at ${backup}`);
  const check = integrityCheck(backup);
  if (check !== "ok")
    throw new AppError("VALIDATION_ERROR", `the backup failed its integrity check: ${check}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const target = path.join(dataDir, SQLITE_FILE);
  if (inUse(target))
    throw new AppError(
      "VALIDATION_ERROR",
      `${target} is open in another process: stop parley serve and every worker before restoring`,
    );
  const staging = `${target}.restoring-${process.pid}`;
  fs.copyFileSync(backup, staging);
  fsyncPath(staging);
  let previous: string | null = null;
  if (fs.existsSync(target)) {
    previous = `${target}.before-restore`;
    // The closed database's -wal holds no committed page the main file lacks after a clean close,
    // but after a crash it may: keep it with the old file rather than let it meet the new one.
    if (fs.existsSync(`${target}-wal`)) fs.renameSync(`${target}-wal`, `${previous}-wal`);
    fs.rmSync(`${target}-shm`, { force: true }); // an index of the -wal, rebuilt on open
    fs.copyFileSync(target, previous);
    fsyncPath(previous);
  }
  fs.renameSync(staging, target);
  fsyncPath(dataDir);
  return { restored: target, from: backup, bytes: fs.statSync(target).size, previous };
}
