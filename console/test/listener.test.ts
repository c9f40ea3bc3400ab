// The console's listener is bounded as the gateway's: one address holding more connections than
// CONNECTIONS_PER_ADDRESS gets 503 with the sentence on the extra one, and the others are served.
import { Agent, request } from 'node:http';
import { loadConfig } from '@media/platform';
import { buildConsole, consoleConfigSpec } from '@media/console';

test('connections over the per-address cap are refused with a sentence; the others are served', async () => {
  const config = loadConfig(consoleConfigSpec, { LOG_LEVEL: 'silent', CONNECTIONS_PER_ADDRESS: '2' });
  const clients = { close: () => {} } as never;
  const app = await buildConsole({ config, clients });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  // Three connections held open at once (keep-alive, one request each).
  const agent = new Agent({ keepAlive: true, maxSockets: 3 });
  const get = () =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/console.js', agent }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
        .on('error', reject)
        .end();
    });
  try {
    const answers = await Promise.all([get(), get(), get()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 503]);
    expect(answers.find((a) => a.status === 503)?.body).toMatch(/connections/i);
    // The script may be cached by browsers; everything else never is.
    const script = await app.inject({ url: '/console.js' });
    expect(script.headers['cache-control']).toBe('public, max-age=300');
    expect((await app.inject({ url: '/healthz' })).headers['cache-control']).toBe('no-store');
  } finally {
    agent.destroy();
    await app.close();
  }
});
