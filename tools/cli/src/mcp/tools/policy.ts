// The FFmpeg policy's verdict on one name, from the published document
// (packages/media/policy/ffmpeg-policy.json, generated from the policy code), so an agent can check
// a filter, codec, format or option before it writes the task. The service still judges the task.
import { readFile } from 'node:fs/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DESCRIPTIONS } from '../descriptions.js';
import { guarded, ok } from '../results.js';

// From dist/mcp/tools/ (or src/mcp/tools/) of tools/cli to the repository's root.
const DOCUMENT = new URL('../../../../../packages/media/policy/ffmpeg-policy.json', import.meta.url);
const KINDS = ['filters', 'encoders', 'decoders', 'muxers', 'demuxers', 'bitstreamFilters'] as const;

interface PolicyDocument {
  ffmpeg: string;
  commandLineOptions: { option: string }[];
  [kind: string]: unknown;
}

let loaded: Promise<PolicyDocument> | undefined;
function policy(): Promise<PolicyDocument> {
  loaded ??= readFile(DOCUMENT, 'utf8').then(
    (text) => JSON.parse(text) as PolicyDocument,
    () => {
      loaded = undefined;
      throw new Error(`the policy document is not at ${DOCUMENT.pathname}: read docs/ffmpeg-policy.md of the service's repository`);
    },
  );
  return loaded;
}

export function registerPolicyTools(server: McpServer) {
  server.registerTool(
    'policy_lookup',
    {
      title: 'Check a name against the FFmpeg policy',
      description: DESCRIPTIONS.policy_lookup,
      inputSchema: {
        name: z
          .string()
          .min(1)
          .describe('a filter (lut3d), encoder (libx264), decoder, muxer or demuxer (hls), bitstream filter, or option (-ss, -c:v)'),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ name }) => {
      const doc = await policy();
      const bare = name.trim().replace(/^-+/, '');
      const option = `-${bare.split(':')[0]}`; // -c:v is judged as -c
      const matches: { kind: string; name: string; verdict: unknown }[] = [];
      for (const entry of doc.commandLineOptions) {
        if (entry.option === option) matches.push({ kind: 'option', name: entry.option, verdict: entry });
      }
      for (const kind of KINDS) {
        const table = doc[kind] as Record<string, unknown>;
        // A format's key may hold several names ('mov,mp4,m4a,3gp,3g2,mj2'): each finds it.
        for (const key of Object.keys(table))
          if (key === bare || key.split(',').includes(bare)) matches.push({ kind: kind.replace(/s$/, ''), name: key, verdict: table[key] });
      }
      return ok({
        ffmpeg: doc.ffmpeg,
        matches,
        ...(matches.length
          ? {}
          : {
              note: `"${name}" is not a name of the build's filters, codecs, formats or command-line options. A codec's, format's or filter's own options (-preset, -crf, -movflags) are judged by their type and value; the service's sentence names anything refused.`,
            }),
      });
    }),
  );
}
