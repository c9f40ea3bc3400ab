import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { startService, type SharedInfra, type RunningService } from '@media/platform';
import type { ProbeConfig } from './config.js';

export function startProbe(config: ProbeConfig, shared?: SharedInfra): Promise<RunningService> {
  return startService('probe', config, config.PROBE_PORT, async () => ({
    routes: (r) => r.service(ProbeService, {}),
    services: [ProbeService.typeName],
  }), shared);
}
