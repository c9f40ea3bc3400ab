// The whole service in one Node process: five services and the gateway, each on its own port,
// talking Connect/gRPC over real sockets, sharing one event bus (in-process unless NATS_URL).
import type { ForkServerPool } from '@media/media';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventBus } from '@media/eventbus';
import {
  ConfigError,
  connectBusAtStart,
  explainListenFailure,
  createLogger,
  generateInternalCredentials,
  internalCallerInterceptors,
  loadConfig,
  type CallerIdentity,
  type ConfigOf,
  type PortSettings,
  type RateClock,
} from '@media/platform';
import { gatewayConfigSpec, startGateway, type RateTestDeps, type RunningGateway } from '@media/gateway';
import { consoleConfigSpec, startConsole } from '@media/console';
import { authConfigSpec, startAuth } from '@media/svc-auth';
import { billingConfigSpec, startBilling } from '@media/svc-billing';
import { jobsConfigSpec, startJobs } from '@media/svc-jobs';
import { probeConfigSpec, startProbe } from '@media/svc-probe';
import { startStorage, storageConfigSpec } from '@media/svc-storage';

export type Env = Record<string, string | undefined>;

/** The services behind the gateway: the one list of their names in this file (types, ports). */
const SERVICES = ['auth', 'storage', 'jobs', 'probe', 'billing'] as const;
export type ServiceName = (typeof SERVICES)[number] | 'gateway';

export interface StackOptions {
  /**
   * The URL `caller` uses to reach `callee` (default: the callee's own). Fault tests put a
   * loopback proxy on one connection here, to take a service away from one caller and back.
   */
  route?: (caller: ServiceName, callee: ServiceName, url: string) => string | Promise<string>;
  /** Fork servers for Jobs and Probe that the caller owns (test stacks share one per process). */
  forkServers?: ForkServerPool;
  /** Test-only: the rate windows' clock, given to Auth and the gateway alike. */
  rateClock?: RateClock;
  /** Test-only: called after each of the gateway's rate reports, with the counts heard from Auth. */
  onGatewayRateReport?: RateTestDeps['onReported'];
}

export interface Stack {
  gatewayUrl: string;
  /** The event bus the services share (tests observe events on it). */
  bus: EventBus;
  /** Base of local-disk signed URLs. */
  publicBaseUrl?: string;
  /** DATA_DIR as the services read it (absolute). */
  dataDir: string;
  adminUrl: string;
  /** The web console's listener, when CONSOLE_PORT is set. */
  consoleUrl?: string;
  urls: Record<(typeof SERVICES)[number], string>;
  gateway: RunningGateway;
  /** Each service, to stop one alone (a pod's rolling update, in tests). */
  services: { jobs: { close(): Promise<void> }; probe: { close(): Promise<void> } };
  /** The interceptors that make a client call as `identity` (tests calling a service directly). */
  callAs(identity: CallerIdentity): ReturnType<typeof internalCallerInterceptors>;
  /** The INTERNAL_TOKEN of `identity` in this run (tests starting another gateway in front of the stack). */
  internalToken(identity: CallerIdentity): string;
  close(): Promise<void>;
}

/** The public ports set to 0 and bound to loopback (tests): the OS picks free ones. */
export const EPHEMERAL_PORTS: Env = {
  PORT: '0',
  STORAGE_HTTP_PORT: '0',
  STORAGE_HTTP_HOST: '127.0.0.1',
};

// In one process the services find each other through the stack, so their gRPC listeners and the
// console's take free ports unless set (npm start prints them; the admin CLI reads the console's
// from DATA_DIR/run/). The fixed defaults 50051-50061, right for a service alone (the chart), lie
// in Linux's ephemeral range: an outgoing connection holding one would fail the start (EADDRINUSE).
const INTERNAL_PORTS = [...SERVICES.map((s) => `${s.toUpperCase()}_PORT`), 'AUTH_ADMIN_PORT'];

/** `env` with each internal port that is unset or empty (empty counts as unset) set to 0. */
export function withFreeInternalPorts(env: Env): Env {
  const out = { ...env };
  for (const name of INTERNAL_PORTS) if (!out[name]) out[name] = '0';
  return out;
}

function loadAll(env: Env) {
  const problems: string[] = [];
  const load = <S extends Parameters<typeof loadConfig>[0]>(spec: S): ConfigOf<S> => {
    try {
      return loadConfig(spec, env);
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
      return undefined as unknown as ConfigOf<S>;
    }
  };
  const configs = {
    auth: load(authConfigSpec),
    storage: load(storageConfigSpec),
    jobs: load(jobsConfigSpec),
    probe: load(probeConfigSpec),
    billing: load(billingConfigSpec),
    gateway: load(gatewayConfigSpec),
    console: load(consoleConfigSpec),
  };
  if (problems.length) throw new ConfigError([...new Set(problems)]);
  return configs;
}

/**
 * The port of every listener `npm start` opens, by the setting that chose it (the internal ones
 * only when set): a port in use is reported by its setting's name (explainListenFailure).
 */
export function listenerPorts(env: Env): PortSettings {
  const { auth, storage, jobs, probe, billing, gateway, console } = loadAll(withFreeInternalPorts(env));
  return {
    PORT: gateway.PORT,
    STORAGE_HTTP_PORT: storage.STORAGE_HTTP_PORT,
    DOCS_PORT: gateway.DOCS_PORT,
    CONSOLE_PORT: console.CONSOLE_PORT,
    METRICS_PORT: gateway.METRICS_PORT,
    AUTH_PORT: auth.AUTH_PORT,
    AUTH_ADMIN_PORT: auth.AUTH_ADMIN_PORT,
    STORAGE_PORT: storage.STORAGE_PORT,
    JOBS_PORT: jobs.JOBS_PORT,
    PROBE_PORT: probe.PROBE_PORT,
    BILLING_PORT: billing.BILLING_PORT,
  };
}

export async function startStack(env: Env, options: StackOptions = {}): Promise<Stack> {
  try {
    return await startStackAs(env, options);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw explainListenFailure(err, listenerPorts(env));
  }
}

async function startStackAs(env: Env, options: StackOptions): Promise<Stack> {
  const configs = loadAll(withFreeInternalPorts(env));
  // Made at each start and passed in-process: every call names its caller, as in a cluster, and
  // nothing needs them outside this process (the admin CLI uses the admin listener).
  const credentials = generateInternalCredentials();
  const callers = { INTERNAL_CALLERS: credentials.callers };
  const token = (identity: CallerIdentity) => ({ INTERNAL_TOKEN: credentials.tokens[identity] });
  const to = async (caller: ServiceName, callee: ServiceName, url: string) => (options.route ? options.route(caller, callee, url) : url);
  const bus = await connectBusAtStart(
    configs.auth.NATS_URL,
    createLogger('eventbus', configs.auth.LOG_LEVEL),
    configs.auth.NATS_STREAM_REPLICAS,
  );
  const shared = { bus };
  const forkServers = options.forkServers ? { forkServers: options.forkServers } : {};
  const started: { close(): Promise<void> }[] = [];
  try {
    const auth = await startAuth({ ...configs.auth, ...callers }, shared, { rateClock: options.rateClock });
    started.push(auth);
    const billing = await startBilling({ ...configs.billing, ...callers }, shared);
    started.push(billing);
    // Storage takes finished outputs in place from the Jobs work directory of this same process.
    const storage = await startStorage(
      {
        ...configs.storage,
        ...callers,
        ...token('storage'),
        AUTH_URL: await to('storage', 'auth', auth.url),
        JOBS_WORK_DIR: configs.storage.JOBS_WORK_DIR ?? configs.jobs.WORK_DIR,
      },
      shared,
    );
    started.push(storage);
    const jobs = await startJobs(
      {
        ...configs.jobs,
        ...callers,
        ...token('jobs'),
        STORAGE_URL: await to('jobs', 'storage', storage.url),
        AUTH_URL: await to('jobs', 'auth', auth.url),
      },
      shared,
      forkServers,
    );
    started.push(jobs);
    const probe = await startProbe(
      {
        ...configs.probe,
        ...callers,
        ...token('probe'),
        STORAGE_URL: await to('probe', 'storage', storage.url),
        JOBS_URL: await to('probe', 'jobs', jobs.url),
      },
      shared,
      forkServers,
    );
    started.push(probe);
    const gateway = await startGateway(
      {
        ...configs.gateway,
        ...token('gateway'),
        AUTH_URL: await to('gateway', 'auth', auth.url),
        STORAGE_URL: await to('gateway', 'storage', storage.url),
        JOBS_URL: await to('gateway', 'jobs', jobs.url),
        PROBE_URL: await to('gateway', 'probe', probe.url),
        BILLING_URL: await to('gateway', 'billing', billing.url),
      },
      shared,
      { rate: { now: options.rateClock, onReported: options.onGatewayRateReport } },
    );
    started.push(gateway);
    const webConsole =
      configs.console.CONSOLE_PORT === undefined
        ? undefined
        : await startConsole({
            ...configs.console,
            ...token('console'),
            CONSOLE_PORT: configs.console.CONSOLE_PORT,
            AUTH_ADMIN_URL: auth.adminUrl,
            STORAGE_URL: storage.url,
            // The Files page uploads to Storage's signed URLs (local disk): their origin.
            ...(storage.publicBaseUrl ? { STORAGE_PUBLIC_URL: storage.publicBaseUrl } : {}),
            JOBS_URL: jobs.url,
            BILLING_URL: billing.url,
            API_URL: gateway.url,
            ...(gateway.docsUrl ? { DOCS_URL: gateway.docsUrl } : {}),
          });
    if (webConsole) started.push(webConsole);
    // Lets the admin CLI find the console listener of this run, whatever port it got.
    const runDir = join(configs.auth.DATA_DIR, 'run');
    await mkdir(runDir, { recursive: true });
    const adminUrlFile = join(runDir, 'auth-admin-url');
    await writeFile(adminUrlFile, auth.adminUrl);
    // Removed on a clean stop: the next run's port differs, and a stale one could be anyone's.
    started.push({ close: () => rm(adminUrlFile, { force: true }) });
    if (webConsole) {
      // Where login links point: CONSOLE_URL when set (the address browsers use), else the listener.
      const consoleUrlFile = join(runDir, 'console-url');
      await writeFile(consoleUrlFile, env.CONSOLE_URL || webConsole.url);
      started.push({ close: () => rm(consoleUrlFile, { force: true }) });
    }
    return {
      gatewayUrl: gateway.url,
      bus,
      publicBaseUrl: storage.publicBaseUrl,
      dataDir: configs.auth.DATA_DIR,
      adminUrl: auth.adminUrl,
      ...(webConsole ? { consoleUrl: webConsole.url } : {}),
      urls: { auth: auth.url, storage: storage.url, jobs: jobs.url, probe: probe.url, billing: billing.url },
      gateway,
      services: { jobs: onceClosing(jobs), probe: onceClosing(probe) },
      callAs: (identity) => internalCallerInterceptors(identity, credentials.tokens[identity]),
      internalToken: (identity) => credentials.tokens[identity],
      close: () => closeAll(started, bus),
    };
  } catch (err) {
    await closeAll(started, bus);
    throw err;
  }
}

/** close() that runs once: the stack's own close comes again for a service a test stopped. */
function onceClosing(service: { close(): Promise<void> }): { close(): Promise<void> } {
  let closing: Promise<void> | undefined;
  const original = service.close.bind(service);
  const close = () => (closing ??= original());
  service.close = close;
  return { close };
}

async function closeAll(started: { close(): Promise<void> }[], bus: { close(): Promise<void> }): Promise<void> {
  // Gateway first, then services in reverse start order, then the shared bus.
  for (const s of [...started].reverse()) await s.close().catch(() => undefined);
  await bus.close();
}
