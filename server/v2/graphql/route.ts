// `{base_url}/v2/app/{app_id}/graphql`: GraphQL over HTTP. It runs after the workspace pipeline
// (request log, workspace, token), so the caller is the one REST would see. The work is in
// handler.ts, loaded on the first GraphQL request: graphql-js and its rules are a large share of
// the server's code, and a start that never serves GraphQL need not load them.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AppContext } from '../../modules/context.js';
import { JSON_LIMIT, tooLargeError } from '../../core/http.js';

/** The GraphQL endpoint reads its body itself (a GraphQL over HTTP client is answered in
 *  GraphQL's shape, and a GET carries none): the workspace pipeline's JSON parser skips it. */
export const readsOwnBody = (req: Request): boolean => req.url.startsWith('/graphql') && req.path === '/graphql';

export function graphqlRoute(router: Router, ctx: AppContext): void {
  // The body is read here (the workspace pipeline leaves it alone on this path), as text within
  // the JSON body limit; graphql-http parses it and answers bad bodies as GraphQL over HTTP says.
  const limit = ctx.config.jsonLimit;
  const readText = express.text({ type: () => true, limit });
  const readBody: RequestHandler = (req, res, next) => readText(req, res, (err?: unknown) => {
    const type = (err as { type?: string } | undefined)?.type;
    next(type === 'entity.too.large' ? tooLargeError('The GraphQL request body', limit, JSON_LIMIT) : err);
  });
  let handler: Promise<(req: Request, res: Response) => Promise<void>> | undefined;
  const serve = async (req: Request, res: Response) => {
    const handle = await (handler ??= import('./handler.js').then((m) => m.graphqlHandler(ctx)));
    await handle(req, res);
  };
  router.all('/graphql', readBody, serve);
}
