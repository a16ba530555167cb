// Builds Relink's OpenAPI document (handlers/api/openapi.json, served at
// GET /openapi.json) from two sources:
//   - the dub SDK pinned in ../package.json: for every SDK operation its
//     method, path, query and path parameters, request body, success
//     response and error responses, with the SDK's zod schemas (the wire
//     side of each inbound schema) turned into JSON Schema. The SDK's
//     schemas are what Relink's responses must pass (BRIEF).
//   - relink.json beside this file: Relink's routes the SDK does not call
//     (exports, tracking from the browser, the embed data API, webhooks,
//     legacy analytics, …) and the few places where Relink documents more
//     than the SDK (extra statuses, content types).
// Run: node tests/sdk/openapi/generate.mjs [--check]. --check exits 1 when
// the committed document differs (make check-generated).
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod/v3";

const here = dirname(fileURLToPath(import.meta.url));
const sdkRoot = join(here, "..", "node_modules", "dub");
const out = join(here, "..", "..", "..", "handlers", "api", "openapi.json");

const components = await import(join(sdkRoot, "dist/esm/models/components/index.js"));
const operations = await import(join(sdkRoot, "dist/esm/models/operations/index.js"));
const errors = await import(join(sdkRoot, "dist/esm/models/errors/index.js"));
const evalSchema = (expr) => new Function("z", "components", "operations", "errors", `return (${expr});`)(z, components, operations, errors);

// toJSON converts a zod v3 schema into an OpenAPI 3.0 schema, reading
// inbound schemas on their input (wire) side.
function toJSON(s, seen = new Set()) {
  const d = s._def;
  switch (d.typeName) {
    case "ZodString": return { type: "string" };
    case "ZodNumber": return d.checks?.some((c) => c.kind === "int") ? { type: "integer" } : { type: "number" };
    case "ZodBigInt": return { type: "integer" };
    case "ZodBoolean": return { type: "boolean" };
    case "ZodDate": return { type: "string" };
    case "ZodNull": return { nullable: true, enum: [null] };
    case "ZodAny": case "ZodUnknown": return {};
    case "ZodNullable": return nullable(toJSON(d.innerType, seen));
    case "ZodOptional": case "ZodDefault": case "ZodCatch": case "ZodReadonly": return toJSON(d.innerType, seen);
    case "ZodBranded": return toJSON(d.type, seen);
    case "ZodEffects": return toJSON(d.schema, seen);
    case "ZodPipeline": return toJSON(d.in, seen);
    case "ZodLazy": {
      if (seen.has(s)) return {};
      seen.add(s);
      const r = toJSON(d.getter(), seen);
      seen.delete(s);
      return r;
    }
    case "ZodArray": return { type: "array", items: toJSON(d.type, seen) };
    case "ZodTuple": return { type: "array" };
    case "ZodSet": return { type: "array", items: toJSON(d.valueType, seen) };
    case "ZodRecord": case "ZodMap": return { type: "object", additionalProperties: toJSON(d.valueType, seen) };
    case "ZodEnum": return { type: "string", enum: [...d.values] };
    case "ZodNativeEnum": {
      const vals = [...new Set(Object.values(d.values).filter((v) => typeof v !== "number" || true))];
      const strs = vals.filter((v) => typeof v === "string");
      return strs.length === vals.length ? { type: "string", enum: strs } : { enum: vals };
    }
    case "ZodLiteral": {
      const v = d.value;
      if (v === null) return { nullable: true, enum: [null] };
      return { type: typeof v === "number" ? "number" : typeof v === "boolean" ? "boolean" : "string", enum: [v] };
    }
    case "ZodUnion": case "ZodDiscriminatedUnion": {
      const opts = [...(d.options instanceof Map ? d.options.values() : d.options)].map((o) => toJSON(o, seen));
      const isNull = (o) => o.nullable && o.enum && o.enum.length === 1 && o.enum[0] === null;
      const rest = opts.filter((o) => !isNull(o));
      let r = rest.length === 1 ? rest[0] : { anyOf: rest };
      if (rest.some((o) => Object.keys(o).length === 0)) r = {};
      return rest.length < opts.length ? nullable(r) : r;
    }
    case "ZodIntersection": return { allOf: [toJSON(d.left, seen), toJSON(d.right, seen)] };
    case "ZodObject": {
      const shape = d.shape();
      const properties = {};
      const required = [];
      for (const [k, v] of Object.entries(shape)) {
        if (k.endsWith("$")) continue; // the SDK's own fields on errors (request$, response$, body$)
        properties[k] = toJSON(v, seen);
        if (!v.isOptional()) required.push(k);
      }
      const o = { type: "object", properties };
      if (required.length) o.required = required;
      return o;
    }
  }
  throw new Error(`unsupported zod type ${d.typeName}`);
}

function nullable(o) {
  if (Object.keys(o).length === 0) return o;
  if (o.anyOf) return { ...o, anyOf: o.anyOf, nullable: true };
  return { ...o, nullable: true };
}

// Named schemas: a top-level SDK schema becomes components.schemas[name].
const schemas = {};
function named(expr) {
  const m = /^(components|operations|errors)\.(\w+)\$inboundSchema$/.exec(expr.trim());
  if (!m) return null;
  const name = m[2];
  if (!schemas[name]) schemas[name] = toJSON(evalSchema(expr));
  return { $ref: `#/components/schemas/${name}` };
}

function schemaOf(expr, key) {
  expr = expr.trim();
  const arr = /^z\.array\(([\s\S]+)\)$/.exec(expr);
  if (key) {
    const s = evalSchema(expr);
    const inner = s._def.typeName === "ZodEffects" ? s._def.schema : s;
    return toJSON(inner._def.shape()[key]);
  }
  if (arr) {
    const ref = named(arr[1]);
    if (ref) return { type: "array", items: ref };
  }
  return named(expr) ?? toJSON(evalSchema(expr));
}

// Top-level call arguments of M.match(...): split on commas at depth 0.
function splitArgs(s) {
  const parts = [];
  let depth = 0, cur = "", q = null;
  for (const ch of s) {
    if (q) { cur += ch; if (ch === q) q = null; continue; }
    if (ch === '"' || ch === "'" || ch === "`") { q = ch; cur += ch; continue; }
    if ("([{".includes(ch)) depth++;
    if (")]}".includes(ch)) depth--;
    if (ch === "," && depth === 0) { parts.push(cur.trim()); cur = ""; continue; }
    cur += ch;
  }
  if (cur.trim()) parts.push(cur.trim());
  return parts;
}

const errorStatus = {};
function operationFrom(file) {
  const src = readFileSync(join(sdkRoot, "src/funcs", file), "utf8");
  const id = /operationID: "(\w+)"/.exec(src)?.[1];
  const method = /method: "(\w+)"/.exec(src)?.[1];
  const path = /pathToFunc\(\s*"([^"]+)"/.exec(src)?.[1];
  if (!id || !method || !path) throw new Error(`${file}: cannot read operation`);
  const op = { operationId: id, tags: [file.replace(/[A-Z].*$/, "")], responses: {} };
  // The request schema's parse: `X$outboundSchema.parse`, `.optional().parse`
  // (an optional body), or `z.array(X$outboundSchema).optional().parse`.
  const reqMatch = /(z\.array\()?operations\.(\w+)\$outboundSchema\)?(?:\.optional\(\))?\.parse/.exec(src);
  const reqName = reqMatch?.[2];
  const reqArray = Boolean(reqMatch?.[1]);
  const req = reqName ? operations[`${reqName}$outboundSchema`] : null;
  const reqShape = req ? (req._def.typeName === "ZodEffects" ? req._def.schema : req)._def.shape?.() : null;
  const params = [];
  for (const m of src.matchAll(/(\w+): encodeSimple\("(\w+)"/g)) {
    params.push({ name: m[2], in: "path", required: true, schema: { type: "string" } });
  }
  const q = /encodeFormQuery\(\{([\s\S]*?)\}\)/.exec(src);
  if (q) {
    for (const m of q[1].matchAll(/"(\w+)": payload\??\.(\w+)/g)) {
      const f = reqShape?.[m[2]];
      params.push({ name: m[1], in: "query", schema: f ? toJSON(f) : { type: "string" }, ...(f && !f.isOptional() ? { required: true } : {}) });
    }
  }
  if (params.length) op.parameters = params;
  const body = /encodeJSON\("body", payload(\??\.RequestBody)?/.exec(src);
  if (body && req) {
    let schema = body[1] ? (reqShape?.RequestBody ? toJSON(reqShape.RequestBody) : {}) : toJSON(req);
    if (reqArray) schema = { type: "array", items: schema };
    op.requestBody = { content: { "application/json": { schema } } };
  }
  const m = /M\.match<[\s\S]*?>\(([\s\S]*?)\)\(response/.exec(src);
  for (const arg of splitArgs(m[1])) {
    const call = /^M\.(\w+)\(([\s\S]*)\)$/.exec(arg);
    if (!call) continue;
    const [kind, inner] = [call[1], call[2]];
    if (kind === "fail") continue;
    const a = splitArgs(inner);
    const status = a[0].replace(/"/g, "");
    if (kind === "jsonErr") {
      const ref = named(a[1]);
      errorStatus[status] = ref;
      op.responses[status] = { $ref: `#/components/responses/E${status}` };
    } else if (kind === "json") {
      const key = a[2] ? /key: "(\w+)"/.exec(a[2])?.[1] : undefined;
      op.responses[status] = { description: "OK", content: { "application/json": { schema: schemaOf(a[1], key) } } };
    } else if (kind === "text") {
      const ct = /ctype: "([^"]+)"/.exec(a[2] ?? "")?.[1] ?? "text/plain";
      op.responses[status] = { description: "OK", content: { [ct]: { schema: { type: "string", format: "binary" } } } };
    } else if (kind === "nil") {
      op.responses[status] = { description: "No content" };
    }
  }
  return { method: method.toLowerCase(), path, op };
}

const doc = {
  openapi: "3.0.3",
  info: {
    title: "Relink API",
    version: "1",
    description: "Relink's Dub-compatible API. Generated by tests/sdk/openapi/generate.mjs from the dub SDK's schemas and tests/sdk/openapi/relink.json; do not edit.",
  },
  servers: [{ url: "/", description: "this server (the API origin, or /api on the app origin)" }],
  security: [{ token: [] }],
  paths: {},
  components: { securitySchemes: { token: { type: "http", scheme: "bearer", description: "A workspace API key (dub_…)" } }, schemas, responses: {} },
};

for (const file of readdirSync(join(sdkRoot, "src/funcs")).filter((f) => f.endsWith(".ts")).sort()) {
  const { method, path, op } = operationFrom(file);
  doc.paths[path] ??= {};
  doc.paths[path][method] = op;
}

// Relink's own routes and additions.
const extra = JSON.parse(readFileSync(join(here, "relink.json"), "utf8"));
Object.assign(schemas, extra.schemas ?? {});
Object.assign(doc.components.securitySchemes, extra.securitySchemes ?? {});
for (const [path, methods] of Object.entries(extra.paths)) {
  doc.paths[path] ??= {};
  for (const [method, op] of Object.entries(methods)) {
    const base = doc.paths[path][method];
    if (op.replaceResponse) {
      if (!base) throw new Error(`relink.json: ${method} ${path} replaces a response of an operation the SDK does not have`);
      Object.assign(base.responses, op.replaceResponse);
      continue;
    }
    if (op.sameAs) {
      const [m, p] = op.sameAs.split(" ");
      const src = doc.paths[p]?.[m];
      if (!src) throw new Error(`relink.json: ${op.sameAs} not found`);
      const { sameAs, ...rest } = op;
      doc.paths[path][method] = { ...structuredClone(src), ...rest };
      continue;
    }
    const o = { ...op };
    if (o.errors) {
      for (const s of o.errors) o.responses[s] = { $ref: `#/components/responses/E${s}` };
      delete o.errors;
    }
    doc.paths[path][method] = o;
  }
}
for (const [status, ref] of Object.entries(errorStatus).sort()) {
  doc.components.responses[`E${status}`] = { description: `Error (${status})`, content: { "application/json": { schema: ref } } };
}

// Deterministic output: paths sorted.
doc.paths = Object.fromEntries(Object.entries(doc.paths).sort(([a], [b]) => (a < b ? -1 : 1)));
doc.components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : 1)));
const text = JSON.stringify(doc, null, 1) + "\n";
if (process.argv.includes("--check")) {
  let old = "";
  try { old = readFileSync(out, "utf8"); } catch {}
  if (old !== text) {
    console.error("handlers/api/openapi.json is stale: run make openapi and commit");
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
