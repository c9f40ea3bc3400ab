// POST /ffprobe/analyze — being implemented with the Probe issue.
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@connectrpc/connect';
import type { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';

export const probeRoutes: FastifyPluginAsync<{ probe: Client<typeof ProbeService> }> = async () => {};
