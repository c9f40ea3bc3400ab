// What every service opens at start: its logger, its own database and the event bus, each
// networked one behind a circuit breaker (503 + Retry-After at once while it is down).
import { guardDocStore, isDocStoreOutage, type DocStore } from '@media/docstore';
import { guardEventBus, isBusOutage, type EventBus } from '@media/eventbus';
import { dependencyGuard } from './breaker.js';
import { createLogger, type Logger } from './logger.js';
import { connectBusAtStart, openStoreAtStart } from './start-errors.js';

export interface InfraConfig {
  LOG_LEVEL: string;
  DATA_DIR: string;
  MONGODB_URL?: string;
  NATS_URL?: string;
  NATS_STREAM_REPLICAS?: number;
  MONGODB_DB_PREFIX?: string;
}

/** Handed in when several services share one process (npm start, tests): one in-process bus. */
export interface SharedInfra {
  bus?: EventBus;
}

export interface Infra {
  logger: Logger;
  store: DocStore;
  bus: EventBus;
  close(): Promise<void>;
}

export async function openInfra(service: string, config: InfraConfig, shared: SharedInfra = {}): Promise<Infra> {
  const logger = createLogger(service, config.LOG_LEVEL);
  const opened = await openStoreAtStart({
    mongoUrl: config.MONGODB_URL,
    // One database per service: "media_auth" on MongoDB, DATA_DIR/auth embedded.
    database: config.MONGODB_URL ? `${config.MONGODB_DB_PREFIX ?? 'media_'}${service}` : service,
    dataDir: config.DATA_DIR,
  });
  // Only networked infrastructure can be down: the embedded store and in-process bus are not guarded.
  const store = config.MONGODB_URL ? guardDocStore(opened, dependencyGuard('mongodb', isDocStoreOutage, { logger })) : opened;
  const connected = shared.bus ?? (await connectBusAtStart(config.NATS_URL, logger, config.NATS_STREAM_REPLICAS));
  // A shared bus gets a view per service: one breaker each, one connection.
  const bus = guardEventBus(connected, dependencyGuard('nats', isBusOutage, { logger }));
  return {
    logger,
    store,
    bus,
    async close() {
      if (!shared.bus) await bus.close();
      await store.close();
    },
  };
}
