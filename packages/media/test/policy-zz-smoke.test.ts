// TEMPORARY (not part of the deliverable): run the canonical args with real ffmpeg.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { validateTask } from '../src/policy/index.js';
import { ORDINARY_TASKS } from './policy-ordinary-rows.js';

test.each(ORDINARY_TASKS)('ffmpeg runs %s', (_t, task) => {
  const plan = validateTask(task);
  const dir = mkdtempSync('/tmp/smoke/out-');
  const argv = ['-hide_banner', '-nostdin', '-v', 'error', '-y'];
  for (const i of plan.inputs) argv.push('-t', '10', '-i', `/tmp/smoke/${i.kind === 'url' ? 'clip.mp4' : i.fileName}`);
  for (const o of plan.outputs) argv.push(...o.args, `${dir}/${o.fileName}`);
  try {
    execFileSync('ffmpeg', argv, { stdio: 'pipe', timeout: 60000 });
  } catch (e) {
    throw new Error(`${argv.join(' ')}\n${String((e as { stderr?: Buffer }).stderr)}`);
  }
  expect(readdirSync(dir).length).toBeGreaterThan(0);
});
