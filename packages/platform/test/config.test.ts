import { commonConfig, ConfigError, CROSS_CHECKS, env, loadConfig } from '../src/config.js';
import { startFailure } from '../src/main.js';
import { localUrl } from '../src/server.js';

const spec = { PORT: env.port(8080), URL: env.url('http://x'), FLAG: env.bool(false), MODE: env.oneOf(['a', 'b'] as const, 'a') };

test('defaults and parsing', () => {
  expect(loadConfig(spec, {})).toEqual({ PORT: 8080, URL: 'http://x', FLAG: false, MODE: 'a' });
  expect(loadConfig(spec, { PORT: '0', URL: 'https://y/', FLAG: 'true', MODE: 'b' })).toEqual({
    PORT: 0,
    URL: 'https://y',
    FLAG: true,
    MODE: 'b',
  });
});

test('every problem is reported at once, naming the variable and the value', () => {
  try {
    loadConfig(spec, { PORT: '99999', URL: 'ftp://nope', FLAG: 'maybe', MODE: 'c' });
    throw new Error('expected a ConfigError');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.problems).toEqual([
      'PORT must be an integer from 0 to 65535 (got "99999")',
      'URL must be a URL (http: or https:) (got "ftp://nope")',
      'FLAG must be true or false (got "maybe")',
      'MODE must be one of a, b (got "c")',
    ]);
    expect(e.message).toContain('Invalid configuration');
  }
});

test('an optional integer is undefined when unset, and checked when set', () => {
  const ahead = { AHEAD: env.optionalInt(0, 256) };
  expect(loadConfig(ahead, {})).toEqual({ AHEAD: undefined });
  expect(loadConfig(ahead, { AHEAD: '' })).toEqual({ AHEAD: undefined });
  expect(loadConfig(ahead, { AHEAD: '0' })).toEqual({ AHEAD: 0 });
  expect(() => loadConfig(ahead, { AHEAD: '257' })).toThrow('AHEAD must be an integer from 0 to 256 (got "257")');
  expect(() => loadConfig(ahead, { AHEAD: 'two' })).toThrow('AHEAD must be an integer from 0 to 256 (got "two")');
});

describe('checks an operator meets before anything starts', () => {
  test('optionalReadableFile: unset, a readable file, a missing one, a directory', () => {
    const spec = { CA: env.optionalReadableFile() };
    expect(loadConfig(spec, {})).toEqual({ CA: undefined });
    expect(loadConfig(spec, { CA: '/etc/hostname' })).toEqual({ CA: '/etc/hostname' });
    expect(() => loadConfig(spec, { CA: '/nonexistent.pem' })).toThrow(
      'CA must name a file this process can read (got "/nonexistent.pem")',
    );
    expect(() => loadConfig(spec, { CA: '/etc' })).toThrow('CA must name a file this process can read');
  });

  test('checked: the parser’s own complaint is kept in the sentence', () => {
    const spec = {
      N: env.checked((raw) => {
        if (raw !== undefined && raw !== 'ok') throw new Error(`bad '${raw}'`);
        return raw;
      }, 'ok or unset'),
    };
    expect(loadConfig(spec, { N: 'ok' })).toEqual({ N: 'ok' });
    expect(() => loadConfig(spec, { N: 'no' })).toThrow(`N must be ok or unset (bad 'no') (got "no")`);
  });

  test('CROSS_CHECKS run once every variable parsed, and join the problems', () => {
    const spec = {
      A: env.optionalString(),
      B: env.optionalString(),
      [CROSS_CHECKS]: (c: Record<string, unknown>) => (c.B !== undefined && c.A === undefined ? ['A is required when B is set'] : []),
    };
    expect(loadConfig(spec, { A: 'x', B: 'y' })).toEqual({ A: 'x', B: 'y' });
    expect(() => loadConfig(spec, { B: 'y' })).toThrow('A is required when B is set');
  });
});

test('startFailure: a system call’s refusal in one line, anything else with its stack', () => {
  const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), {
    code: 'EADDRINUSE',
    syscall: 'listen',
  });
  expect(startFailure(inUse)).toBe('listen EADDRINUSE: address already in use 127.0.0.1:8080');
  const bug = new TypeError('x is not a function');
  expect(startFailure(bug)).toContain('at ');
});

describe('backend URLs as operators write them', () => {
  const load = (source: Record<string, string>) => loadConfig(commonConfig, source);

  test('MONGODB_URL: a replica set (several host:port), +srv, and one host are taken as written', () => {
    for (const url of [
      'mongodb://app:s3cret@m1:27017,m2:27017,m3:27017/?replicaSet=rs0&authSource=admin',
      'mongodb+srv://app:s3cret@cluster0.example.net/?retryWrites=true',
      'mongodb://127.0.0.1:27017',
    ])
      expect(load({ MONGODB_URL: url }).MONGODB_URL).toBe(url);
  });

  test('NATS_URL: seed lists, credentials and tls:// pass; websockets and other schemes do not', () => {
    expect(load({ NATS_URL: 'nats://app:pw@n1:4222, nats://app:pw@n2:4222' }).NATS_URL).toBe(
      'nats://app:pw@n1:4222, nats://app:pw@n2:4222',
    );
    expect(load({ NATS_URL: 'tls://nats.example.net' }).NATS_URL).toBe('tls://nats.example.net');
    expect(() => load({ NATS_URL: 'ws://nats:8080' })).toThrow(
      'NATS_URL must be nats:// or tls:// URLs, comma-separated ("ws://" is not supported (nats:// or tls://))',
    );
    expect(() => load({ NATS_URL: 'http://nats:4222' })).toThrow(/NATS_URL must be nats:\/\/ or tls:\/\//);
  });

  test('a refused value is shown without its password, and a secret not at all', () => {
    let message = '';
    try {
      load({ MONGODB_URL: 'postgres://app:hunter2@db:5432', NATS_URL: 'ws://app:hunter2@nats:8080' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('MONGODB_URL must be a mongodb:// or mongodb+srv:// connection string');
    expect(message).toContain('(got "postgres://***@db:5432")');
    expect(message).toContain('(got "ws://***@nats:8080")');
    expect(message).not.toContain('hunter2');
    // The cases where a URL gets refused are those where its password may be odd: a "/" in it,
    // no scheme at all, a bad port.
    for (const [variable, value] of [
      ['MONGODB_URL', 'mongodb://app:hun/ter2@db:27017'],
      ['MONGODB_URL', 'mongodb://app:hunter2@db:99999'],
      ['NATS_URL', 'app:hunter2@n1:4222'],
      ['NATS_URL', 'nats://app:hun"ter2@n1:4222/x'],
    ] as const) {
      let refused = '';
      try {
        load({ [variable]: value });
      } catch (err) {
        refused = (err as Error).message;
      }
      expect(refused).toContain(`${variable} must be`);
      expect(refused).not.toMatch(/hun.?ter2|ter2/);
    }
    const secret = { BLOB_SIGNING_SECRET: env.pattern(/^.{32,}$/, 'at least 32 characters') };
    expect(() => loadConfig(secret, { BLOB_SIGNING_SECRET: 'hunter2' })).toThrow(
      'BLOB_SIGNING_SECRET must be at least 32 characters (got 7 characters)',
    );
  });
});

test('localUrl: a wildcard listener is reached on loopback, IPv6 addresses bracketed', () => {
  expect(localUrl('0.0.0.0', 8080)).toBe('http://127.0.0.1:8080');
  expect(localUrl('::', 8080)).toBe('http://[::1]:8080');
  expect(localUrl('127.0.0.1', 1)).toBe('http://127.0.0.1:1');
  expect(localUrl('fd00::5', 50051)).toBe('http://[fd00::5]:50051');
});
