// TLS material: the configured pair, or a self-signed pair generated once into DATA_DIR.
import fs from "node:fs";
import path from "node:path";
import { generate } from "selfsigned";

export interface TlsMaterial {
  key: string;
  cert: string;
  selfSigned: boolean;
}

export async function loadTls(options: {
  tlsCert: string | null;
  tlsKey: string | null;
  dataDir: string;
}): Promise<TlsMaterial> {
  if (options.tlsCert && options.tlsKey) {
    return {
      cert: fs.readFileSync(options.tlsCert, "utf8"),
      key: fs.readFileSync(options.tlsKey, "utf8"),
      selfSigned: false,
    };
  }
  const dir = path.join(options.dataDir, "tls");
  const certFile = path.join(dir, "self-signed.crt");
  const keyFile = path.join(dir, "self-signed.key");
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    return {
      cert: fs.readFileSync(certFile, "utf8"),
      key: fs.readFileSync(keyFile, "utf8"),
      selfSigned: true,
    };
  }
  const now = new Date();
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 825 * 86_400_000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  fs.writeFileSync(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, selfSigned: true };
}
