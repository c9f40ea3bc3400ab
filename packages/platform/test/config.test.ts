import { ConfigError, CROSS_CHECKS, env, loadConfig } from '../src/config.js';
import { startFailure } from '../src/main.js';

const spec = { PORT: env.port(8080), URL: env.url('http://x'), FLAG: env.bool(false), MODE: env.oneOf(['a', 'b'] as const, 'a') };

test('defaults and parsing', () => {
  expect(loadConfig(spec, {})).toEqual({ PORT: 8080, URL: 'http://x', FLAG: false, MODE: 'a' });
  expect(loadConfig(spec, { PORT: '0', URL: 'https://y/', FLAG: 'true', MODE: 'b' })).toEqual({ PORT: 0, URL: 'https://y', FLAG: true, MODE: 'b' });
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
    expect(() => loadConfig(spec, { CA: '/nonexistent.pem' })).toThrow('CA must name a file this process can read (got "/nonexistent.pem")');
    expect(() => loadConfig(spec, { CA: '/etc' })).toThrow('CA must name a file this process can read');
  });

  test('checked: the parser’s own complaint is kept in the sentence', () => {
    const spec = { N: env.checked((raw) => { if (raw !== undefined && raw !== 'ok') throw new Error(`bad '${raw}'`); return raw; }, 'ok or unset') };
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
  const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE', syscall: 'listen' });
  expect(startFailure(inUse)).toBe('listen EADDRINUSE: address already in use 127.0.0.1:8080');
  const bug = new TypeError('x is not a function');
  expect(startFailure(bug)).toContain('at ');
});
