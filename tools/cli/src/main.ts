// The `media` command (bin/media.mjs runs this).
import { main } from './program.js';

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderrIsTty: Boolean(process.stderr.isTTY),
});
