// The baseline for the API's request rate: bare Fastify answering hello world, in its own
// process like the service. Prints its URL on stdout.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
