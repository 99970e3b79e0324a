// Ajv set-up: bodies are validated strictly (a string is not silently turned into a number),
// query strings and path params are coerced (they only ever arrive as text).
import { Ajv, type ErrorObject } from "ajv";
import formatsPlugin from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

function makeAjv(coerceTypes: boolean | "array"): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: "all",
    allErrors: false,
    strict: false,
  });
  // ajv-formats is CommonJS: its default export is the plugin itself at run time.
  const addFormats = formatsPlugin as unknown as (a: Ajv) => Ajv;
  addFormats(ajv);
  return ajv;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv("array");

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? strictAjv : coercingAjv;
  return ajv.compile(schema as object);
};

/** "customData.fromId is required", "amount must be number", … : the field is always named. */
export function describeValidationErrors(errors: ErrorObject[], part: string | undefined): string {
  const first = errors[0];
  if (!first) return "Invalid request";
  const base = first.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const where = (field: string) => (field ? field : part === "body" ? "body" : (part ?? "request"));
  switch (first.keyword) {
    case "required": {
      const missing = (first.params as { missingProperty: string }).missingProperty;
      return `${where(base ? `${base}.${missing}` : missing)} is required`;
    }
    case "type":
      return `${where(base)} must be ${(first.params as { type: string }).type}`;
    case "maxLength":
      return `${where(base)} must be at most ${(first.params as { limit: number }).limit} characters`;
    case "minLength": {
      // "must not be empty" only when that is the rule: a password of 5 characters is not empty.
      const limit = (first.params as { limit: number }).limit;
      return limit > 1
        ? `${where(base)} must be at least ${limit} characters`
        : `${where(base)} must not be empty`;
    }
    case "enum":
      return `${where(base)} must be one of ${(first.params as { allowedValues: unknown[] }).allowedValues.join(", ")}`;
    case "format":
      return `${where(base)} must be a valid ${(first.params as { format: string }).format}`;
    default:
      return `${where(base)} ${first.message ?? "is invalid"}`;
  }
}
