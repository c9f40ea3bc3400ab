// docs/media-service-interface.md is the public interface, shipped with the code (the README links
// it, so a clone has it). It must be the spec this gateway implements: the same text as the
// workspace's copy where that exists, and every endpoint it lists routed.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildInMemoryGateway, type InMemoryGateway } from './in-memory.js';

const root = resolve(import.meta.dirname, '../..');
const doc = readFileSync(resolve(root, 'docs/media-service-interface.md'), 'utf8');
const source = resolve(root, '../shared/spec/media-service-interface.md');

// The routes are the gateway's own: build() on in-memory services has them all.
let gateway: InMemoryGateway;
beforeAll(async () => {
  gateway = await buildInMemoryGateway();
});
afterAll(() => gateway?.close());

(existsSync(source) ? test : test.skip)('the shipped copy is the workspace spec, unchanged', () => {
  expect(doc).toBe(readFileSync(source, 'utf8'));
});

test('every endpoint the interface lists is routed, the retired and unavailable ones too', () => {
  const endpoints = [...doc.matchAll(/^### (GET|POST|DELETE) (\/\S+)$/gm)].map((m) => [m[1]!, m[2]!.replace(/\{(\w+)\}/g, ':$1')] as const);
  expect(endpoints).toHaveLength(15);
  const retiredTable = doc.slice(
    doc.indexOf('### Retired and unavailable endpoints'),
    doc.indexOf('Any other path or method answers 404.'),
  );
  // The first cell of each row names them ("POST /ffmpeg/run", "POST /ai/..., POST /ai/...").
  const firstCells = retiredTable
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .map((l) => l.split('|')[1]!);
  const retired = firstCells.flatMap((cell) => [...cell.matchAll(/(GET|POST|DELETE) (\/[\w/]+)/g)].map((m) => [m[1]!, m[2]!] as const));
  expect(retired).toHaveLength(4);
  const missing = [...endpoints, ...retired].filter(([method, url]) => !gateway.app.hasRoute({ method, url }));
  expect(missing).toEqual([]);
});
