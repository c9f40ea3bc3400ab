// Traces (OpenTelemetry), off unless an OTLP endpoint is configured. One trace per API request:
// the gateway's request span, the Connect calls it makes (the W3C `traceparent` header carries the
// context to the service), the service's spans for staging, ffmpeg and storing; an async job keeps
// the context it was submitted in (traceCarrier) and its later run and webhook attempts continue
// that trace (contextFrom). Off, every helper here is a plain call: nothing is loaded or created.
// Trace headers cross only our own hops: no global propagator is set, so a `traceparent` sent by
// an API client is ignored and each request starts a trace of its own (a client could otherwise
// choose our trace ids, or force every request to be sampled).
import type { Interceptor, StreamResponse, UnaryResponse } from '@connectrpc/connect';
import {
  type Attributes,
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { whenCallEnds } from './call-stream.js';

let enabled = false;

/** Whether this process exports traces (startTracing ran with an endpoint configured). */
export const tracingEnabled = (): boolean => enabled;

/** The standard variables that name where traces go; with neither set, tracing stays off. */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (String(env.OTEL_SDK_DISABLED).toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface Tracing {
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK for this process when an OTLP endpoint is set (the SDK reads the
 * standard OTEL_* variables: protocol, headers, sampler, service name). Traces only: metrics are
 * Prometheus's (METRICS_PORT) and logs go to stdout with the trace id in each line.
 */
export async function startTracing(name: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | null> {
  if (!tracingConfigured(env)) return null;
  // Loaded only when used: most processes never trace, and the SDK is a few hundred modules.
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || (name.startsWith('media-') ? name : `media-${name}`),
    instrumentations: [],
    // Ours only (w3c, below): the gateway must not take up a client's trace context.
    textMapPropagator: null,
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  enabled = true;
  return {
    async shutdown() {
      enabled = false;
      await sdk.shutdown();
    },
  };
}

const tracer = () => trace.getTracer('media-service');
const w3c = new W3CTraceContextPropagator();

/**
 * Runs `fn` in a span, a child of the current context (or of `parent`), which ends when `fn`
 * settles; a throw marks it failed. Off, `fn` runs as it is.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  if (!enabled) return fn();
  return tracer().startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** W3C trace headers of the current context, kept with work that runs later (an async job). */
export type TraceCarrier = Record<string, string>;

export function traceCarrier(): TraceCarrier | undefined {
  if (!enabled) return undefined;
  const carrier: TraceCarrier = {};
  w3c.inject(context.active(), carrier, defaultTextMapSetter);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a stored carrier names (the root context without one): the parent of later work. */
export function contextFrom(carrier: TraceCarrier | null | undefined): Context {
  return enabled && carrier ? w3c.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter) : ROOT_CONTEXT;
}

/** Marks the current span failed (work that records its failure rather than throwing it). */
export function spanFailed(message: string): void {
  if (enabled) trace.getSpan(context.active())?.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** The current span's ids for a log line; empty outside a span or with tracing off. */
export function traceIds(): { trace_id?: string; span_id?: string } {
  if (!enabled) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

function failed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

const headerSetter = { set: (h: Headers, key: string, value: string) => h.set(key, value) };
const headerGetter = {
  get: (h: Headers, key: string) => h.get(key) ?? undefined,
  keys: (h: Headers) => [...h.keys()],
};

/** A span around one Connect call: ends with a unary answer, or a stream's last message. */
function rpcSpan(kind: SpanKind, parent: Context, inject: boolean): Interceptor {
  return (next) => async (req) => {
    const attributes = { 'rpc.system': 'connect_rpc', 'rpc.service': req.service.typeName, 'rpc.method': req.method.name };
    const span = tracer().startSpan(`${req.service.typeName}/${req.method.name}`, { kind, attributes }, parent);
    const ctx = trace.setSpan(parent, span);
    if (inject) w3c.inject(ctx, req.header, headerSetter);
    try {
      const res: UnaryResponse | StreamResponse = await context.with(ctx, () => next(req));
      return whenCallEnds(res, () => span.end());
    } catch (err) {
      failed(span, err);
      span.end();
      throw err;
    }
  };
}

/**
 * Client side: a span per call made for traced work, its context sent as `traceparent` to the
 * service. Background calls (the gateway's rate sync, say) are outside any trace: not traced.
 */
export const tracingClientInterceptor: Interceptor = (next) => async (req) => {
  if (!enabled || !trace.getSpan(context.active())) return next(req);
  return rpcSpan(SpanKind.CLIENT, context.active(), true)(next)(req);
};

/**
 * Server side: the call's span continues the caller's trace, and the handler runs in it. A call
 * that comes without one (a health check, a background call, the admin CLI) starts none.
 */
export const tracingServerInterceptor: Interceptor = (next) => async (req) => {
  if (!enabled || !req.header.has('traceparent')) return next(req);
  return rpcSpan(SpanKind.SERVER, w3c.extract(ROOT_CONTEXT, req.header, headerGetter), false)(next)(req);
};
