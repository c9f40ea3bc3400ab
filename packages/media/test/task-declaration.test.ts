// The task is declared once, in jobs.proto: its JSON (the request body, a job's stored task, the
// console's copy) is the proto JSON, so every field's JSON name must be its (snake_case) name.
import type { DescMessage } from '@bufbuild/protobuf';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';

function fieldNames(desc: DescMessage, seen = new Set<string>()): Array<[string, string]> {
  if (seen.has(desc.typeName)) return [];
  seen.add(desc.typeName);
  return desc.fields.flatMap((f): Array<[string, string]> => [[f.name, f.jsonName], ...(f.message ? fieldNames(f.message, seen) : [])]);
}

test('every field of the task has its proto name as its JSON name (json_name on snake_case names)', () => {
  const names = fieldNames(TaskSchema);
  expect(names.length).toBeGreaterThan(0);
  for (const [name, jsonName] of names) expect({ name, jsonName }).toEqual({ name, jsonName: name });
});
