import { pino, stdTimeFunctions, type Logger as PinoLogger } from 'pino';
import { currentRequestId } from './context.js';

export type Logger = PinoLogger;

/** JSON logs; every line written inside a request carries its requestId. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: stdTimeFunctions.isoTime,
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
  });
}
