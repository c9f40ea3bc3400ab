// The Files page's upload scripts come from the console itself, and the pages' CSP lets them
// connect to the console and to Storage's listener only (STORAGE_PUBLIC_URL's origin), nowhere else.
import { loadConfig } from '@media/platform';
import { buildConsole, consoleConfigSpec } from '@media/console';

async function consoleWith(env: Record<string, string>) {
  const config = loadConfig(consoleConfigSpec, { LOG_LEVEL: 'silent', ...env });
  return buildConsole({ config, clients: { close: () => {} } as never });
}

test("connect-src is the console's own origin, plus Storage's listener when uploads are on", async () => {
  const off = await consoleWith({});
  const on = await consoleWith({ STORAGE_PUBLIC_URL: 'https://files.example.com:8443/media/' });
  try {
    const policy = async (app: typeof on) => String((await app.inject({ url: '/healthz' })).headers['content-security-policy']);
    expect(await policy(off)).toContain("script-src 'self'; connect-src 'self';");
    expect(await policy(on)).toContain("script-src 'self'; connect-src 'self' https://files.example.com:8443;");
    expect(await policy(on)).not.toContain('*');
  } finally {
    await Promise.all([off.close(), on.close()]);
  }
});

test('tus-js-client and the upload script are served by the console, cacheable, without a source map', async () => {
  const app = await consoleWith({ STORAGE_PUBLIC_URL: 'http://localhost:8081' });
  try {
    for (const url of ['/tus.min.js', '/upload.js']) {
      const res = await app.inject({ url });
      expect({ url, status: res.statusCode, type: res.headers['content-type'] }).toEqual({
        url,
        status: 200,
        type: expect.stringMatching(/^text\/javascript/),
      });
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.body).not.toContain('sourceMappingURL');
    }
    expect((await app.inject({ url: '/tus.min.js' })).body).toContain('Upload');
  } finally {
    await app.close();
  }
});
