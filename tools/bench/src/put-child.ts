// The plain PUT with Node's HTTP client, in a process of its own as tus-js-client's uploads are
// (tus-upload bench): `node put-child.js <file> <url>`. Exits non-zero unless answered 2xx.
import { putFile } from './lib/service.js';

const [file, url] = process.argv.slice(2) as [string, string];
await putFile(url, {}, file);
