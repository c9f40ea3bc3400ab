// Configuration is read once per service, from the environment, and validated before anything
// starts; every problem is reported in one message so an operator fixes them all at once.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { natsConnectOptions } from '@media/eventbus';
import { DEFAULT_URL_MIN_BYTES_PER_SEC } from './rate-floor.js';
import { createRequire } from 'node:module';
import { CALLER_IDENTITIES, checkInternalToken, INTERNAL_TOKEN_MIN_LENGTH, parseInternalCallers } from './internal-access.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses one variable; throws a string (the problem, without the variable name) when invalid. */
export type Field<T> = (raw: string | undefined) => T;

/**
 * A spec's rules that span variables (S3_BUCKET is required when another S3_* is set, say), run
 * once each variable parsed: the problems it returns name their variables, and join the others.
 */
export const CROSS_CHECKS = Symbol('cross-variable checks');

type Spec = Record<string, Field<unknown>> & { [CROSS_CHECKS]?: (config: Record<string, unknown>) => string[] };
export type ConfigOf<S extends Spec> = { [K in Exclude<keyof S, typeof CROSS_CHECKS>]: S[K] extends Field<infer T> ? T : never };

export function loadConfig<S extends Spec>(spec: S, source: Record<string, string | undefined>): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(spec)) {
    const raw = source[name];
    try {
      out[name] = field(raw === '' ? undefined : raw);
    } catch (problem) {
      const got =
        raw === undefined ? '' : SECRET_NAME.test(name) ? ` (got ${raw.length} characters)` : ` (got ${redact(JSON.stringify(raw), raw)})`;
      problems.push(`${name} ${redact(problem instanceof Error ? problem.message : String(problem), raw)}${got}`);
    }
  }
  if (problems.length === 0) problems.push(...(spec[CROSS_CHECKS]?.(out) ?? []));
  if (problems.length) throw new ConfigError(problems);
  return out as ConfigOf<S>;
}

// Start-up errors go to logs: never print a secret, nor a URL's password or token.
const SECRET_NAME = /SECRET|PASSWORD|TOKEN/;

/**
 * The credentials a value may carry: in each comma-separated part, what comes before its last
 * "@" (after "scheme://", if any). A password need not be well-formed to be one: a "/" in it, or
 * a missing scheme, is exactly when a URL is refused and printed.
 */
function credentialsIn(raw: string): string[] {
  return raw.split(',').flatMap((part) => {
    const at = part.lastIndexOf('@');
    if (at < 0) return [];
    const scheme = part.indexOf('://');
    const userinfo = part.slice(scheme >= 0 && scheme < at ? scheme + 3 : 0, at).trim();
    return userinfo ? [userinfo] : [];
  });
}

/** `text` with every credential of `raw` in it (as written, or JSON-escaped) replaced by ***. */
function redact(text: string, raw: string | undefined): string {
  let out = text;
  for (const secret of raw === undefined ? [] : credentialsIn(raw)) {
    for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) out = out.split(form).join('***');
  }
  return out;
}

function required<T>(value: T | undefined): T {
  if (value === undefined) throw 'is required';
  return value;
}

export const env = {
  string(defaultValue?: string): Field<string> {
    return (raw) => required(raw ?? defaultValue);
  },
  optionalString(): Field<string | undefined> {
    return (raw) => raw;
  },
  /** A directory or file path, made absolute against the working directory at start. */
  path(defaultValue: string): Field<string> {
    return (raw) => resolve(required(raw ?? defaultValue));
  },
  optionalPath(): Field<string | undefined> {
    return (raw) => (raw === undefined ? undefined : resolve(raw));
  },
  int(defaultValue: number | undefined, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Field<number> {
    return (raw) => {
      if (raw === undefined) return required(defaultValue);
      if (!/^-?\d+$/.test(raw.trim())) throw `must be an integer from ${min} to ${max}`;
      const n = Number(raw);
      if (n < min || n > max) throw `must be an integer from ${min} to ${max}`;
      return n;
    };
  },
  /** An integer, or undefined when unset (the caller derives a default from other settings). */
  optionalInt(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Field<number | undefined> {
    const field = env.int(0, min, max);
    return (raw) => (raw === undefined ? undefined : field(raw));
  },
  port(defaultValue: number): Field<number> {
    return env.int(defaultValue, 0, 65535);
  },
  bool(defaultValue: boolean): Field<boolean> {
    return (raw) => {
      if (raw === undefined) return defaultValue;
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      throw 'must be true or false';
    };
  },
  url(defaultValue?: string, protocols = ['http:', 'https:']): Field<string> {
    return (raw) => {
      const value = required(raw ?? defaultValue);
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw `must be a URL (${protocols.join(' or ')})`;
      }
      if (!protocols.includes(parsed.protocol)) throw `must be a URL (${protocols.join(' or ')})`;
      return value.replace(/\/+$/, '');
    };
  },
  optionalUrl(protocols: string[]): Field<string | undefined> {
    const url = env.url(undefined, protocols);
    return (raw) => (raw === undefined ? undefined : url(raw));
  },
  oneOf<T extends string>(values: readonly T[], defaultValue: T): Field<T> {
    return (raw) => {
      const value = raw ?? defaultValue;
      if (!values.includes(value as T)) throw `must be one of ${values.join(', ')}`;
      return value as T;
    };
  },
  /** A path to a file this process can read (its content is read later, by the service). */
  optionalReadableFile(): Field<string | undefined> {
    return (raw) => {
      if (raw === undefined) return undefined;
      try {
        if (!statSync(raw).isFile()) throw new Error();
        accessSync(raw, constants.R_OK);
      } catch {
        throw 'must name a file this process can read';
      }
      return raw;
    };
  },
  /** A value checked by `parse` (which throws an Error saying what is wrong with it). */
  checked<T>(parse: (raw: string | undefined) => T, expected: string): Field<T> {
    return (raw) => {
      try {
        return parse(raw);
      } catch (err) {
        throw `must be ${expected}${err instanceof Error ? ` (${err.message})` : ''}`;
      }
    };
  },
  pattern(re: RegExp, description: string, defaultValue?: string): Field<string> {
    return (raw) => {
      const value = required(raw ?? defaultValue);
      if (!re.test(value)) throw `must be ${description}`;
      return value;
    };
  },
};

// The MongoDB driver's own parser (a CommonJS package whose types its exports map hides), loaded
// only when MONGODB_URL is set.
const mongoUrlParser = () =>
  (createRequire(import.meta.url)('mongodb-connection-string-url') as { ConnectionString: new (url: string) => { hosts: string[] } })
    .ConnectionString;

/** The host:port list of a MongoDB connection string (no credentials); throws if it does not parse. */
export const mongoUrlHosts = (url: string): string[] => new (mongoUrlParser())(url).hosts;

function checkMongoUrl(raw: string): string {
  const hosts = mongoUrlHosts(raw);
  for (const host of hosts) {
    const port = /:(\d+)$/.exec(host)?.[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw new Error(`port ${port} is not a port`);
  }
  return raw;
}

/** A MongoDB connection string, one host or several (a replica set), parsed as the driver parses it. */
const optionalMongoUrl = env.checked(
  (raw) => (raw === undefined ? undefined : checkMongoUrl(raw)),
  'a mongodb:// or mongodb+srv:// connection string',
);

/** NATS servers: nats:// or tls:// URLs, comma-separated, with user:password@ or token@. */
export const optionalNatsUrl = env.checked(
  (raw) => (raw === undefined ? undefined : (natsConnectOptions(raw), raw)),
  'nats:// or tls:// URLs, comma-separated',
);

/** The event bus: NATS JetStream at NATS_URL (unset: in-process), its streams' replicas on a NATS cluster. */
export const natsConfig = {
  NATS_URL: optionalNatsUrl,
  /** Every process that connects must give the same value: each one creates or updates the streams. */
  NATS_STREAM_REPLICAS: env.int(1, 1, 5),
};

/** The operations listener of a process alone (ops-server.ts); npm start serves one for all. */
export const opsListenerConfig = {
  /** /metrics, /livez, /readyz; unset: none (npm start sets 9464). */
  METRICS_PORT: env.optionalInt(0, 65535),
  METRICS_HOST: env.string('0.0.0.0'),
  /** false: HTTP and RPC calls are not counted or timed (the benchmark's baseline). */
  METRICS_ENABLED: env.bool(true),
};

/** Auth's CONSOLE_URL when unset: `{console_url}` in the 403 texts of Auth and of Storage alike. */
export const DEFAULT_CONSOLE_URL = 'https://console.example.com';

/** The settings of a process that calls other services (the gateway, the console, Jobs, Probe, Storage). */
export const internalTokenConfig = {
  INTERNAL_TOKEN: env.checked(
    (raw) => (raw === undefined ? undefined : checkInternalToken(raw)),
    `at least ${INTERNAL_TOKEN_MIN_LENGTH} printable ASCII characters, e.g. from openssl rand -hex 32`,
  ),
};

/** The setting of a service: the hashes of its callers' tokens (unset: see internalCallerCheck). */
export const internalCallersConfig = {
  INTERNAL_CALLERS: env.checked(
    (raw) => (raw === undefined ? undefined : (parseInternalCallers(raw), raw)),
    `a comma-separated list of <caller>:<SHA-256 of its INTERNAL_TOKEN, hex>, callers ${CALLER_IDENTITIES.join(', ')}`,
  ),
};

/** Settings every service reads. */
export const commonConfig = {
  ...opsListenerConfig,
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  // Absolute from here on: ffmpeg runs with its work directory as cwd, and paths handed between
  // services (staged inputs, stored outputs) must mean the same file wherever they are read.
  DATA_DIR: env.path('./.data'),
  MONGODB_URL: optionalMongoUrl,
  ...natsConfig,
  /** Interface the internal Connect/gRPC listeners bind to. */
  SERVICE_HOST: env.string('127.0.0.1'),
  ...internalCallersConfig,
  /** On shutdown, how long calls in progress (a sync run, a probe) may take before they are cancelled. */
  SHUTDOWN_GRACE_SEC: env.int(20, 0, 3600),
  MONGODB_DB_PREFIX: env.pattern(/^[A-Za-z0-9_-]{0,32}$/, 'up to 32 letters, digits, _ or -', 'media_'),
  /**
   * Names this process across restarts, so that started again after a crash it releases the
   * work it had admitted (see admission-owner.ts). Default: the host name with DATA_DIR.
   */
  INSTANCE_ID: env.optionalString(),
  /** A sync run's or a probe's admission lapses this long after its process last renewed it. */
  ADMISSION_LEASE_SEC: env.int(30, 1, 3600),
  /** URL inputs must bring at least this many bytes a second, averaged over each minute (0: no floor). */
  URL_MIN_BYTES_PER_SEC: env.int(DEFAULT_URL_MIN_BYTES_PER_SEC, 0, 1_000_000_000),
  /**
   * Free space (MB) kept on DATA_DIR's disk (and WORK_DIR's) for the stores: below it uploads,
   * URL inputs and job outputs answer 503 with Retry-After (0: no reserve).
   */
  DISK_RESERVE_MB: env.int(1024, 0, 100_000_000),
};

/**
 * HTTP listeners facing clients (the gateway, Storage's signed-URL listener): how long a client
 * may take to send its headers, and how many connections one address, and everyone together,
 * may hold open (0: no cap). Behind a proxy every connection comes from the proxy's address: raise
 * CONNECTIONS_PER_ADDRESS or set it to 0 there, and cap per client at the proxy.
 */
export const clientListenerConfig = {
  HTTP_HEADERS_TIMEOUT_SEC: env.int(10, 1, 600),
  CONNECTIONS_PER_ADDRESS: env.int(256, 0, 1_000_000),
  MAX_CONNECTIONS: env.int(8192, 0, 10_000_000),
};
