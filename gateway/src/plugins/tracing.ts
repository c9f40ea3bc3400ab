// Traces: each request's span comes from @fastify/otel (the Fastify team's instrumentation), named
// by route pattern; the Connect calls made for the request are its children. Registered only when
// this process exports traces (OTEL_EXPORTER_OTLP_ENDPOINT): otherwise it costs nothing.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyInstance } from 'fastify';
import { tracingEnabled } from '@media/platform';

export async function registerTracing(app: FastifyInstance): Promise<void> {
  if (!tracingEnabled()) return;
  const instrumentation = new FastifyOtelInstrumentation({
    // The handler and the hooks that run once the body has arrived (the idempotency check calls
    // Auth there) run in the request's span: its context does not survive the wait for the body.
    instrumentHooks: ['preValidation', 'preHandler'],
    requestHook(span, req) {
      span.updateName(`${req.method} ${req.routeOptions.url ?? 'unmatched'}`);
      span.setAttribute('media.request_id', req.id);
    },
  });
  await app.register(instrumentation.plugin());
}
