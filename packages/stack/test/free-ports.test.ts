import { withFreeInternalPorts } from '../src/index.js';

const INTERNAL = ['AUTH_PORT', 'AUTH_ADMIN_PORT', 'STORAGE_PORT', 'JOBS_PORT', 'PROBE_PORT', 'BILLING_PORT'];

test('unset or empty internal ports become 0 (free); set ones and the public ports stay as given', () => {
  const env = withFreeInternalPorts({ AUTH_PORT: '6000', JOBS_PORT: '', PORT: '8080', DATA_DIR: '/d' });
  expect(env).toEqual({
    ...Object.fromEntries(INTERNAL.map((k) => [k, '0'])),
    AUTH_PORT: '6000',
    PORT: '8080',
    DATA_DIR: '/d',
  });
  expect(env).not.toHaveProperty('STORAGE_HTTP_PORT');
});

test("the caller's env is not changed", () => {
  const given = { PROBE_PORT: '' };
  withFreeInternalPorts(given);
  expect(given).toEqual({ PROBE_PORT: '' });
});
