// Tracing's switch and its off state: with no OTLP endpoint nothing is started and every helper is
// a plain call. (What is exported when it is on: tools/start/test/tracing.test.ts, over npm start.)
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { contextFrom, inSpan, startTracing, traceCarrier, traceIds, tracingConfigured, tracingEnabled } from '../src/tracing.js';

test('on only when an OTLP endpoint is named, and not when the SDK is disabled', () => {
  expect(tracingConfigured({})).toBe(false);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
  // Only endpoints switch it on: a protocol or a service name alone does not.
  expect(tracingConfigured({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x' })).toBe(false);
});

test('off: nothing starts, spans are plain calls, nothing is carried or logged', async () => {
  expect(await startTracing('jobs', {})).toBeNull();
  expect(tracingEnabled()).toBe(false);
  await expect(inSpan('work', {}, async () => 42)).resolves.toBe(42);
  await expect(
    inSpan('work', {}, async () => {
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  expect(traceCarrier()).toBeUndefined();
  expect(traceIds()).toEqual({});
  // A job stored while tracing was on, run by a process where it is off: no parent.
  expect(contextFrom({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).toBe(ROOT_CONTEXT);
});
