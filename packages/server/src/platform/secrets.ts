// Secrets at rest (channel tokens, app secrets): AES-256-GCM with node:crypto. The key is
// PARLEY_SECRET_KEY (config.secretKey) or, without it, a random key generated into DATA_DIR/secret.key
// (mode 0600) on first start and read from there afterwards. Several API nodes must share the key: set
// PARLEY_SECRET_KEY on each (or share DATA_DIR).
//
// Ciphertext (text, for a text column): "v1." + base64url(keyId(1) | iv(12) | tag(16) | data).
// The key-id byte names the key that sealed it, so a later rotation can keep old keys to open old
// values and seal new ones with the new key. Today there is one key, id 1.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.ts";

const PREFIX = "v1.";
const CURRENT_KEY_ID = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_KEY_FILE = "secret.key";

export class SecretBox {
  private readonly keys: Map<number, Buffer>;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("a secret key is 32 bytes");
    this.keys = new Map([[CURRENT_KEY_ID, key]]);
  }

  /** Encrypts a JSON-serialisable value to the text stored in the database. */
  seal(value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.keys.get(CURRENT_KEY_ID)!, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    const out = Buffer.concat([Buffer.from([CURRENT_KEY_ID]), iv, cipher.getAuthTag(), data]);
    return PREFIX + out.toString("base64url");
  }

  /** Decrypts what `seal` wrote; throws on a wrong key, a changed byte or an unknown format. */
  open<T = unknown>(sealed: string): T {
    if (!sealed.startsWith(PREFIX)) throw new Error("unknown secret format");
    const raw = Buffer.from(sealed.slice(PREFIX.length), "base64url");
    if (raw.length < 1 + IV_BYTES + TAG_BYTES) throw new Error("secret too short");
    const key = this.keys.get(raw[0]!);
    if (!key) throw new Error(`secret sealed with unknown key id ${raw[0]}`);
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(1, 1 + IV_BYTES));
    decipher.setAuthTag(raw.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(raw.subarray(1 + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
    return JSON.parse(text) as T;
  }
}

/**
 * The key: config.secretKey, else DATA_DIR/secret.key, created (32 random bytes, hex, mode 0600) when
 * missing. `wx` makes a concurrent first start of two processes keep one file: the loser reads it.
 */
export function loadSecretKey(config: Pick<Config, "secretKey" | "dataDir">): Buffer {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  try {
    return parseKeyFile(fs.readFileSync(file, "utf8"), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    fs.writeFileSync(file, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return parseKeyFile(fs.readFileSync(file, "utf8"), file);
  }
}

function parseKeyFile(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${file} does not hold a 64-hex-character key`);
  return Buffer.from(hex, "hex");
}

/** Masks a secret for answers and logs: "••••" and its last 4 characters (nothing of a short one). */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `••••${value.slice(-4)}` : "••••";
}
