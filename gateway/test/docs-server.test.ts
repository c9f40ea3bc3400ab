// The API reference's listener: its page and document, and a shutdown that no client can hold up
// (a request still arriving, or an answer not read, would otherwise keep npm start from exiting).
import { connect } from 'node:net';
import { startDocs } from '../src/docs-server.js';
import { openapiDocument } from '../src/openapi-document.js';

// The document is built once (a whole gateway build()); each test gets its own listener.
let document: Record<string, unknown>;
beforeAll(async () => {
  document = await openapiDocument();
});
const startTestDocs = () =>
  startDocs({
    port: 0,
    host: '127.0.0.1',
    document,
    apiUrl: 'http://127.0.0.1:1',
    logLevel: 'silent',
  });

test('close() ends while a client is still sending its request', async () => {
  const docs = await startTestDocs();
  const { port } = new URL(docs.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {}); // cut with a reset: expected
  const ended = new Promise((resolve) => socket.once('close', resolve));
  // A first request answered: the server holds this connection.
  const answered = new Promise((resolve) => socket.once('data', resolve));
  socket.write('HEAD /static/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n');
  await answered;
  // Headers begun, never finished: the connection is busy, not idle, for Node's request timeout.
  socket.write('GET /static/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n');
  // Had close() waited for the request, node's headers timeout (60 s) would have ended it first.
  const waited = new Promise((r) => setTimeout(r, 60_000, 'waited').unref());
  expect(await Promise.race([docs.close().then(() => 'closed'), waited])).toBe('closed');
  await ended; // the connection was cut
  socket.destroy();
});

test('the page and the document with the given server', async () => {
  const docs = await startTestDocs();
  try {
    expect((await fetch(`${docs.url}/`)).headers.get('content-type')).toMatch(/^text\/html/);
    const doc = (await (await fetch(`${docs.url}/openapi.json`)).json()) as { openapi: string; servers: unknown };
    expect(doc).toMatchObject({ openapi: '3.1.0', servers: [{ url: 'http://127.0.0.1:1' }] });
  } finally {
    await docs.close();
  }
});
