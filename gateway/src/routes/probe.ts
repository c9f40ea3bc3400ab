// POST /ffprobe/analyze: check the body and the probe object here (the same validator the Probe
// service runs again), then probe in the Probe service. The result holds ffprobe's own JSON for
// each section asked for.
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { validateProbeRequest, type ProbeSpec } from '@media/media';
import { usageJson } from '@media/platform';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import { authedErrors, chargedResponse, noQuery } from './schemas.js';

const analyzeBody = {
  type: 'object',
  required: ['file_path'],
  additionalProperties: false,
  properties: {
    file_path: { type: 'string', description: '<dir_id>/<file_name> of an uploaded file, or a public https:// URL.' },
    probe: {
      type: 'object',
      additionalProperties: true,
      description: 'Which sections and entries to read (default: format and streams); see docs/api/probes.md.',
    },
  },
  examples: [{ file_path: 'dir_abc123/input.mp4' }],
} as const;

// ffprobe's JSON, section by section: passed through as it is.
const analyzeResponse = chargedResponse("ffprobe's JSON, section by section, and what was charged.", {
  type: 'object',
  additionalProperties: true,
});

/** The checked probe as the proto carries it (sections as entry lists, controls by name). */
export function probeMessage(spec: ProbeSpec) {
  return {
    sections: Object.fromEntries(Object.entries(spec.sections).map(([name, entries]) => [name, { entries }])),
    selectStreams: spec.selectStreams,
    readIntervals: spec.readIntervals,
    countFrames: spec.countFrames,
    countPackets: spec.countPackets,
    analyzedurationSec: spec.analyzeDurationSec,
    probesizeBytes: spec.probesizeBytes === undefined ? undefined : BigInt(spec.probesizeBytes),
  };
}

const postFlags: RouteFlags = { bodyRequired: true, idempotent: true };

export const probeRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { probe: Client<typeof ProbeService> } }> = async (
  app,
  { probe },
) => {
  app.post(
    '/ffprobe/analyze',
    {
      config: postFlags,
      schema: {
        tags: ['Probe'],
        operationId: 'probe',
        summary: 'Probe a file or URL with ffprobe',
        querystring: noQuery,
        body: analyzeBody,
        response: { 200: analyzeResponse, ...authedErrors(404) },
      },
    },
    async (req, reply) => {
      // Refuses a bad file_path or probe option before any RPC; the Probe service checks again.
      const checked = validateProbeRequest(req.body);
      const { accountId, keyId } = req.principal;
      const filePath = checked.input.kind === 'url' ? checked.input.url : checked.input.filePath;
      const res = await probe.analyze(
        { accountId, keyId, filePath, probe: checked.probeGiven ? probeMessage(checked.probe) : undefined },
        rpcOptions(req, reply),
      );
      return {
        ok: true,
        result: JSON.parse(res.resultJson) as Record<string, unknown>,
        usage: usageJson(res.usage),
        request_id: res.requestId,
        amount_usd: res.amountUsd,
      };
    },
  );
};
