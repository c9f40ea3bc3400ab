// ProbeService.Analyze: the request is checked again here (file_path and every probe option)
// before anything is resolved, admitted or run; the gateway's checks are not relied on.
import type { ServiceImpl } from '@connectrpc/connect';
import type { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { parseFilePath } from '@media/media';
import { Errors } from '@media/platform';
import { analyze, type AnalyzeDeps } from './domain/analyze.js';
import { probeFromMessage } from './domain/probe-message.js';

export function createProbeService(deps: AnalyzeDeps): Partial<ServiceImpl<typeof ProbeService>> {
  return {
    async analyze(req, ctx) {
      if (!req.accountId) throw Errors.invalidRequest('account_id is required');
      const input = parseFilePath(req.filePath);
      const spec = probeFromMessage(req.probe);
      const done = await analyze(deps, { accountId: req.accountId, keyId: req.keyId }, { input, filePath: req.filePath, spec }, ctx.signal);
      return { requestId: done.requestId, resultJson: JSON.stringify(done.result), usage: done.usage, amountUsd: done.amountUsd };
    },
  };
}
