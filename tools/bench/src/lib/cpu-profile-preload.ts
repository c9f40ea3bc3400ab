// Loaded into the service with --import when `npm run bench -- --profile-service DIR` is given:
// samples the main thread's CPU from start-up and writes DIR/service-<pid>.cpuprofile (open it in
// Chrome DevTools or VS Code) when the bench sends SIGUSR2 before stopping the service. Not
// --cpu-prof: Node 20 refuses it in NODE_OPTIONS, and the bench stops services with SIGKILL,
// which --cpu-prof would not survive.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.on('SIGUSR2', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
