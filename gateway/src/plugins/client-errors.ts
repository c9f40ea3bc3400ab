// Node's HTTP parser refuses some requests before Fastify sees them; Fastify would answer those in
// its own shape and without X-Request-Id. They are answered as the platform answers them.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { answerClientError, type ParserError } from '@media/platform';

/** Fastify's `clientErrorHandler` (bound to the instance). */
export function clientErrorHandler(this: FastifyInstance, err: ParserError, socket: Socket): void {
  answerClientError(err, socket, this.log);
}
