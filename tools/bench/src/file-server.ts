// A reference for the transfers: a bare node:http server that streams a PUT body into a file
// (fsynced before it answers, as the service does) and a GET out of one, with Node's default
// stream settings, in its own process like the service. Not a target's baseline (that is cp):
// it shows how much of the gap to cp is Node's HTTP itself. Prints its URL on stdout.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2]!;
const server = createServer((req, res) => {
  const path = join(dir, 'bare-node.bin');
  const done =
    req.method === 'PUT'
      ? pipeline(req, createWriteStream(path, { flush: true })).then(() => res.end('ok'))
      : stat(path).then((info) => {
          res.setHeader('content-length', info.size);
          return pipeline(createReadStream(path), res);
        });
  done.catch(() => res.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${port}/bare-node.bin\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
