// The docs point at each other and at the code: every relative link in a Markdown file of the
// repository names a file that exists and, with a #fragment into Markdown, a heading it has.
// The README stays short: what, the two commands, a first session, links.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git', '.data', 'gen', 'coverage']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** [text](target) links outside code, minus those to other sites. */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

const files = markdownFiles(root);

test('the Markdown files are found (the control)', () => {
  const names = files.map((f) => relative(root, f));
  expect(names).toEqual(
    expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/architecture.md', 'docs/api/README.md', 'docs/operations/README.md']),
  );
  expect(links(join(root, 'README.md')).length).toBeGreaterThan(5);
});

test("slugs are GitHub's", () => {
  expect(slug('The console (admin CLI)')).toBe('the-console-admin-cli');
  expect(slug('Processing (POST /ffmpeg/process)')).toBe('processing-post-ffmpegprocess');
});

test('every relative link resolves, anchors included', () => {
  const broken: string[] = [];
  for (const file of files) {
    for (const link of links(file)) {
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${link}`;
      if (!existsSync(target)) broken.push(`${where} (no such file)`);
      else if (fragment && target.endsWith('.md') && statSync(target).isFile() && !anchors(target).has(fragment))
        broken.push(`${where} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

test('the README is short: under 200 lines', () => {
  expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(200);
});
