// Response serializers (fast-json-stringify, as Fastify builds them by default), compiled once per
// response schema in a process. Route schemas are module constants, so every app this process builds
// (tests build hundreds, each in a fraction of a second otherwise spent compiling the same serializers)
// shares them; a schema object built per app simply compiles again.
import SerializerSelector from "@fastify/fast-json-stringify-compiler";
import type { FastifySerializerCompiler } from "fastify";

const compile = SerializerSelector()({}, {});
const compiled = new WeakMap<object, (data: unknown) => string>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const schema = route.schema as object;
  let serialize = compiled.get(schema);
  if (!serialize) {
    // Fastify always names the status for a response schema (the type allows none).
    serialize = compile({ ...route, httpStatus: route.httpStatus ?? "default" });
    compiled.set(schema, serialize);
  }
  return serialize;
};
