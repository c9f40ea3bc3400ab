import { ConfigError, env, loadConfig } from '../src/config.js';

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
