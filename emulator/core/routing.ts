import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteShorthandOptions } from 'fastify';
import { ApiError, ErrorCode } from './errors';
import { success, type ResultInfo } from './envelope';

/**
 * What a handler returns: a result, or a result with `result_info` for lists; or a whole success
 * response already made (`body`, as `successBody` of `./envelope.ts` makes it), which is sent as it is.
 * The vendor's dialect answers some deletes in shapes of its own: `noContent` (HTTP 204, no body),
 * `bare` (that JSON value as the whole body, no envelope) and `noResult` (the envelope without
 * `result`).
 */
export type Handled =
  | { result: unknown; resultInfo?: ResultInfo }
  | { result: unknown }
  | { body: Buffer }
  | { noContent: true }
  | { bare: unknown }
  | { noResult: true };

type Handler = (request: FastifyRequest) => Handled | Promise<Handled>;

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Registers the handlers of one URL, and a 405 (with `Allow`) for the other methods, so that a
 * wrong method is told apart from a wrong path. Handlers return the result; the envelope is added
 * here.
 */
export function routes(
  app: FastifyInstance,
  url: string,
  handlers: Partial<Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', Handler>>,
  options: RouteShorthandOptions = {},
): void {
  const allowed = Object.keys(handlers).join(', ');
  for (const method of METHODS) {
    const handler = handlers[method as keyof typeof handlers];
    app.route({
      ...options,
      method,
      url,
      // What is sent: an envelope, its bytes, the envelope without `result`, a bare JSON value or nothing (a 204).
      handler: async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
        if (!handler) {
          throw new ApiError(
            405,
            [
              {
                code: ErrorCode.methodNotAllowed,
                message: `${method} is not allowed on this URI; allowed: ${allowed}`,
              },
            ],
            { allow: allowed },
          );
        }
        const handled = await handler(request);
        if ('noContent' in handled) return reply.code(204).send();
        reply.header('content-type', 'application/json; charset=utf-8');
        if ('body' in handled) return handled.body;
        if ('bare' in handled) return handled.bare;
        if ('noResult' in handled) {
          const { result: _none, ...rest } = success(null);
          return rest;
        }
        return success(handled.result, 'resultInfo' in handled ? handled.resultInfo : undefined);
      },
    });
  }
}
