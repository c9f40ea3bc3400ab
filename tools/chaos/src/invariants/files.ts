// Every upload acknowledged with 200 reads back byte for byte at the end; no read ever returned
// other bytes; every file a directory lists can be read.
import type { RunData } from '../record.js';
import { verdict, type Verdict } from './verdict.js';

export function checkFiles(data: Pick<RunData, 'uploads' | 'downloads' | 'listed'>): Verdict {
  const violations: string[] = [];
  const finalBy = new Map(data.downloads.filter((d) => d.when === 'final').map((d) => [d.filePath, d]));
  const acknowledged = data.uploads.filter((u) => u.acknowledged);
  let same = 0;
  for (const u of acknowledged) {
    const d = finalBy.get(u.filePath);
    if (d?.outcome === 'same') same++;
    else
      violations.push(
        `${u.filePath} (${u.account}): acknowledged, ${d ? `${d.outcome} at the end${d.detail ? ` (${d.detail})` : ''}` : 'never read back'}`,
      );
  }
  for (const d of data.downloads)
    if (d.when === 'load' && d.outcome === 'different') violations.push(`${d.filePath}: read other bytes during the load (${d.detail})`);
  const unreadable = data.listed.filter((l) => !l.readable);
  for (const l of unreadable) violations.push(`${l.filePath} (${l.account}): listed but unreadable (${l.detail ?? '?'})`);
  return verdict(
    'uploads read back, listed files readable',
    `${same}/${acknowledged.length} acknowledged uploads read back identical (${data.uploads.length - acknowledged.length} not acknowledged); ${data.listed.length - unreadable.length}/${data.listed.length} listed files readable`,
    violations,
    {
      uploads: data.uploads.length,
      acknowledged: acknowledged.length,
      identical: same,
      listed: data.listed.length,
      listedUnreadable: unreadable.length,
    },
  );
}
