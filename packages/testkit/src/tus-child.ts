// One tus upload in a process of its own, for tests that cut it (killing the process closes its
// connection mid-body) and resume it from another process: `node tus-child.js <file> <url>
// [chunkBytes]`. The URL is given as the upload and as its creation endpoint, as the docs advise.
// Prints JSON lines: {"patchFrom": offset} before each PATCH, {"sent": bytes} at each percent,
// then {"ok": true} or {"error": message, "status": code}.
import { createReadStream, statSync } from 'node:fs';
import { Upload, type DetailedError } from 'tus-js-client';

const [file, url, chunk] = process.argv.slice(2) as [string, string, string | undefined];
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
const size = statSync(file).size;
let lastPercent = -1;

const upload = new Upload(createReadStream(file), {
  endpoint: url,
  uploadUrl: url,
  chunkSize: chunk ? Number(chunk) : Number.POSITIVE_INFINITY,
  // As tus-js-client users run it: a request refused while the service still holds the cut
  // request (423, 409) or a dropped connection is retried from the offset asked again.
  retryDelays: [0, 1000, 3000, 5000],
  onBeforeRequest: (req) => {
    if (req.getMethod() === 'PATCH') say({ patchFrom: Number(req.getHeader('Upload-Offset')) });
  },
  onProgress: (sent) => {
    const percent = Math.floor((sent / size) * 100);
    if (percent === lastPercent) return;
    lastPercent = percent;
    say({ sent });
  },
  onSuccess: () => say({ ok: true }),
  onError: (err) => {
    say({ error: err.message, status: (err as DetailedError).originalResponse?.getStatus() ?? null });
    process.exitCode = 1;
  },
});
upload.start();
