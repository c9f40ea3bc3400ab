import { pino, stdTimeFunctions, type Logger as PinoLogger } from 'pino';
import { currentRequestId } from './context.js';
import { traceIds } from './tracing.js';

export type Logger = PinoLogger;

/** JSON logs; every line written inside a request carries its requestId (and trace_id when traced). */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: stdTimeFunctions.isoTime,
    mixin() {
      const requestId = currentRequestId();
      const ids = traceIds();
      return requestId ? { requestId, ...ids } : ids;
    },
  });
}
