// The URL-input download's remote: a bare HTTPS server (node:https, the tests' self-signed
// certificate) streaming one file, in its own process so that neither client shares a process
// with it. Writes its certificate to <dir>/https-ca.pem and prints its URL on stdout.
import { createReadStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startHttpsServer } from '@media/testkit';

const [file, dir] = [process.argv[2]!, process.argv[3]!];
const server = await startHttpsServer({
  host: '127.0.0.1',
  handler: (_req, res) => {
    stat(file)
      .then((info) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': info.size });
        return pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), res);
      })
      .catch(() => res.destroy());
  },
});
await writeFile(join(dir, 'https-ca.pem'), server.ca);
process.stdout.write(`${server.url}/input.bin\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
