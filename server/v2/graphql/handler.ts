// The GraphQL endpoint's work (route.ts loads this file on the first GraphQL request: graphql-js
// and its rules are a large share of the server's code, which a start need not load). GraphQL
// over HTTP by graphql-http (POST with a JSON body, GET for queries;
// `application/graphql-response+json` or `application/json` as the client accepts). The schema is
// the workspace's (schema.ts), built once per shape of its collections and rebuilt when a
// collection or a field changes. A query nested deeper than MAX_DEPTH or costing more than
// MAX_COST is refused before it runs.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql/index.js';
import { createHandler, type Request as GqlRequest } from 'graphql-http';
import depthLimit from 'graphql-depth-limit';
import { createComplexityRule, fieldExtensionsEstimator, simpleEstimator } from 'graphql-query-complexity';
import type { AppContext } from '../../modules/context.js';
import type { Workspace } from '../../storage/workspace.js';
import { ApiError, publicError } from '../../core/errors.js';
import { listCollections } from '../../modules/database/index.js';
import { buildWorkspaceSchema, type GraphqlContext } from './schema.js';

/** Deepest selection nesting a query may have (a record list's fields are at depth 3). */
export const MAX_DEPTH = 10;
/** Highest cost a query may have: 1 per field, a list's fields counted once per item of its
 *  page (its `limit`, 50 when not given). */
export const MAX_COST = 20_000;

// Not server state: memos of the schema built for a shape of collections (by the immutable list
// of definitions, and the last one per workspace by the shape's hash).
interface Cached { key: string; schema: GraphQLSchema }
const byCollections = new WeakMap<object, GraphQLSchema>();
const byWorkspace = new WeakMap<Workspace, Cached>();

/** What the schema depends on: the collections' ids and their fields' ids, names, types,
 *  required flags and enum values. */
function shapeKey(ws: Workspace): string {
  const shape = listCollections(ws).map((c) => [c._id, c.fields.map((f) => [f._id, f.name, f.type, !!f.required, f.options?.values ?? null])]);
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url');
}

/** The workspace's schema, rebuilt only when the shape of its collections changed. */
export function schemaFor(ws: Workspace): GraphQLSchema {
  const collections = listCollections(ws);
  const same = byCollections.get(collections);
  if (same) return same;
  const key = shapeKey(ws);
  let cached = byWorkspace.get(ws);
  if (cached?.key !== key) {
    cached = { key, schema: buildWorkspaceSchema(collections) };
    byWorkspace.set(ws, cached);
  }
  byCollections.set(collections, cached.schema);
  return cached.schema;
}

// A client asks the same few queries again and again: their parse and their validation (the
// limits included) are remembered, the parse by query text (the last PARSED_KEPT texts), the
// validation by parsed document, schema and variables (the cost may read a variable's limit).
// Not server state: bounded memos of pure functions of immutable inputs.
const PARSED_KEPT = 500;
const parsed = new Map<string, DocumentNode>();
function parseRemembered(source: string | { body: string }): DocumentNode {
  const text = typeof source === 'string' ? source : source.body;
  let doc = parsed.get(text);
  if (doc) return doc;
  doc = parse(text);
  if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value as string);
  parsed.set(text, doc);
  return doc;
}
const validated = new WeakMap<DocumentNode, WeakMap<GraphQLSchema, Map<string, readonly GraphQLError[]>>>();
/** The variables of the request a rule list was made for (the list is made per request). */
const variablesKey = new WeakMap<readonly unknown[], string>();

/** An error of a resolver keeps the REST error's code and details in `extensions`; anything
 *  unexpected is logged and shown as an internal error, never with its stack. */
function formatError(err: Error): GraphQLError | Error {
  if (!(err instanceof GraphQLError)) return err;
  const original = err.originalError;
  if (!original || original instanceof GraphQLError) return err;
  const api = original instanceof ApiError ? original : publicError(original, { graphqlPath: err.path });
  return new GraphQLError(api.message, {
    nodes: err.nodes, source: err.source, positions: err.positions, path: err.path,
    extensions: { ...err.extensions, code: api.code, status: api.status, details: api.details ?? {} },
  });
}

/** Answers a GraphQL request whose body route.ts has read as text. */
export function graphqlHandler(ctx: AppContext): (req: Request, res: Response) => Promise<void> {
  const handle = createHandler<Request, undefined, GraphqlContext>({
    schema: (req) => schemaFor(req.raw.ws),
    context: (req) => ({ ctx, ws: req.raw.ws, auth: req.raw.auth ?? null, req: req.raw }),
    parse: parseRemembered as typeof parse,
    validate: ((schema: GraphQLSchema, document: DocumentNode, rules) => {
      const key = rules && variablesKey.get(rules);
      if (key === undefined || key.length > 2000) return validate(schema, document, rules);
      let bySchema = validated.get(document);
      if (!bySchema) validated.set(document, bySchema = new WeakMap());
      let byVariables = bySchema.get(schema);
      if (!byVariables) bySchema.set(schema, byVariables = new Map());
      let errors = byVariables.get(key);
      if (!errors) {
        errors = validate(schema, document, rules);
        if (byVariables.size >= 20) byVariables.clear();
        byVariables.set(key, errors);
      }
      return errors;
    }) as typeof validate,
    validationRules: (_req, args, specified) => {
      const rules = [
        ...specified,
        depthLimit(MAX_DEPTH),
        createComplexityRule({
          maximumComplexity: MAX_COST,
          variables: args.variableValues ?? {},
          estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
          createError: (max, actual) => new GraphQLError(`The query costs ${actual}, more than the limit of ${max}; ask for smaller pages or fewer fields`,
            { extensions: { code: 'BAD_REQUEST', details: { cost: actual, limit: max } } }),
        }),
      ];
      variablesKey.set(rules, JSON.stringify(args.variableValues ?? null));
      return rules;
    },
    formatError,
  });
  return async (req: Request, res: Response) => {
    const gqlReq: GqlRequest<Request, undefined> = {
      method: req.method,
      url: req.originalUrl,
      headers: { get: (key: string) => { const v = req.headers[key.toLowerCase()]; return Array.isArray(v) ? v.join(', ') : v ?? null; } },
      body: () => (typeof req.body === 'string' ? req.body : ''),
      raw: req,
      context: undefined,
    };
    const [body, init] = await handle(gqlReq);
    res.writeHead(init.status, init.statusText, init.headers as Record<string, string> | undefined).end(body);
  };
}
