// A dependency that refuses us at start (NATS asking for credentials, MongoDB not reachable or
// not the replica set named) is the operator's to fix: say which setting and which servers, in
// one line without credentials, not a library's stack trace.
import { connectEventBus, natsConnectOptions, type EventBus, type HandlerErrorListener } from '@media/eventbus';
import { openDocStore, type DocStore, type OpenDocStoreOptions } from '@media/docstore';
import { mongoUrlHosts } from './config.js';
import type { Logger } from './logger.js';

/** A start-up failure whose message says it all (runMain prints it without a stack). */
export class DependencyStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DependencyStartError';
  }
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The event bus of NATS_URL (or the in-process one), its streams with `streamReplicas` copies
 * (NATS_STREAM_REPLICAS); an event given up on is logged to `logger`.
 */
export async function connectBusAtStart(natsUrl: string | undefined, logger: Logger, streamReplicas?: number): Promise<EventBus> {
  const onError: HandlerErrorListener = (err, msg, final) => {
    // Failed deliveries are retried and quiet; the last one means the event is lost to its handler.
    if (final) logger.warn({ err, subject: msg.subject, deliveries: msg.deliveryCount }, 'event dropped after its last delivery');
  };
  try {
    return await connectEventBus({ natsUrl, onError, streamReplicas });
  } catch (err) {
    if (!natsUrl) throw err;
    const servers = (natsConnectOptions(natsUrl).servers as string[]).join(', ');
    const hint = /authorization|authentication/i.test(reasonOf(err)) ? ' Check the user and password (or token) in NATS_URL.' : '';
    throw new DependencyStartError(`Cannot use NATS at ${servers} (NATS_URL): ${reasonOf(err)}.${hint}`, { cause: err });
  }
}

interface ServerDescriptionLike {
  type?: string;
  setName?: string | null;
  error?: { message?: string } | null;
}

/**
 * What a MongoDB server-selection failure found at each address of the URL: often the real
 * reason. A host the driver dropped from its view (a standalone, or a member of another set, when
 * the URL names a replica set) is missing from its list: say so, or the one refused looks like the cause.
 */
function serversFound(err: unknown, url: string): string {
  const servers = (err as { reason?: { servers?: Map<string, ServerDescriptionLike> } }).reason?.servers;
  if (!(servers instanceof Map)) return '';
  const replicaSet = /[?&]replicaSet=([^&]+)/i.exec(url)?.[1];
  const found = [...new Set([...mongoUrlHosts(url), ...servers.keys()])].map((address) => {
    const d = servers.get(address);
    if (!d)
      return `${address}: left out by the driver${replicaSet ? ` (is it a member of replica set ${decodeURIComponent(replicaSet)}?)` : ''}`;
    return `${address}: ${d.error?.message ?? `${d.type ?? 'unknown'}${d.setName ? ` of replica set ${d.setName}` : ''}`}`;
  });
  return ` (servers: ${found.join('; ')})`;
}

/** The service's database: MongoDB at MONGODB_URL, or the embedded store. */
export async function openStoreAtStart(options: OpenDocStoreOptions): Promise<DocStore> {
  try {
    return await openDocStore(options);
  } catch (err) {
    if (!options.mongoUrl) throw err;
    throw new DependencyStartError(
      `Cannot use MongoDB at ${mongoUrlHosts(options.mongoUrl).join(', ')} (MONGODB_URL): ${reasonOf(err)}${serversFound(err, options.mongoUrl)}`,
      { cause: err },
    );
  }
}

/** The settings that chose each listener's port, by name (`{ PORT: 8080, DOCS_PORT: 8082 }`); undefined: no listener. */
export type PortSettings = Record<string, number | undefined>;

/**
 * A listener that could not bind (EADDRINUSE) told in the operator's terms: which setting chose
 * the port and how to change it. The error's port is looked up among `settings`; an error that
 * is not a port in use, or whose port no setting chose, is returned as it is.
 */
export function explainListenFailure(err: unknown, settings: PortSettings): unknown {
  const sys = err as NodeJS.ErrnoException & { port?: number };
  if (!(err instanceof Error) || sys.code !== 'EADDRINUSE' || sys.syscall !== 'listen' || !sys.port) return err;
  const names = Object.keys(settings).filter((name) => settings[name] === sys.port);
  if (names.length === 0) return err;
  const [first] = names as [string];
  // Two settings on one port: the process collides with itself.
  const message =
    names.length > 1
      ? `${names.join(' and ')} are ${names.length === 2 ? 'both' : 'all'} ${sys.port}; give each a port of its own (or 0 for any free one)`
      : `${first} ${sys.port} is already in use (by another process); set ${first} to a free port, or 0 for any`;
  return new DependencyStartError(message, { cause: err });
}

/** The port settings of a loaded configuration: every `PORT` and `..._PORT` it holds as a number. */
export function portSettingsOf(config: object): PortSettings {
  return Object.fromEntries(
    Object.entries(config).filter(([name, value]) => /(^|_)PORT$/.test(name) && typeof value === 'number') as [string, number][],
  );
}

/** Runs a process's start, a port in use told by the setting of `config` that chose it. */
export async function namingPorts<T>(config: object, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    throw explainListenFailure(err, portSettingsOf(config));
  }
}
