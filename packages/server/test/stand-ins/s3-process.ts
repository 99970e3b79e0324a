// A local S3-compatible bucket as a process of its own, for CI's reliability pass with STORAGE_URL
// set (every `parley serve` the suite starts then keeps its files there): s3rver serving the bucket
// `parley` from a directory. Usage: node s3-process.ts DIR; prints the STORAGE_URL on its first line
// and runs until it is stopped (SIGTERM).
import S3rver from "s3rver";

const directory = process.argv[2];
if (!directory) {
  console.error("usage: node s3-process.ts DIR");
  process.exit(2);
}
const server = new S3rver({
  port: 0,
  address: "127.0.0.1",
  directory,
  silent: true,
  configureBuckets: [{ name: "parley", configs: [] }],
});
const { port } = (await server.run()) as { port: number };
console.log(`s3://parley?region=us-east-1&endpoint=http://127.0.0.1:${port}&forcePathStyle=true`);
process.on("SIGTERM", () => {
  server.close().finally(() => process.exit(0));
});
