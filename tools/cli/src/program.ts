// media: every command of the CLI, on the typed client. Results go to stdout (the API's own JSON
// with --json), progress and messages to stderr; exit codes by error class (exit-codes.ts).
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { type Job, MediaApiError, MediaClient, type ProcessResult, type Task } from '@media/client';
import { downloadTo, type ResumeEvent } from '@media/client/node';
import { type CommandLine, explainInCliTerms } from './cli-sentences.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { filePathDir, isRemoteInput, type LocalFile, localFile, localInputs } from './local-files.js';
import { serveHttp } from './mcp/http.js';
import { serveStdio } from './mcp/server.js';
import { bytesMeter, jobMeter, type Output } from './progress.js';
import { continueUnfinished, placeLocalFiles, recordUploads, type Uploaded, uploadedIn, uploadHashed } from './reuse-uploads.js';
import { readTaskFile, type TaskFlags, taskFromFlags } from './task.js';
import { resumeOptions } from './resume-options.js';
import { cacheDir, NO_REUSE_ENV, UploadCache } from './upload-cache.js';
import { UsageError } from './usage-error.js';

const DEFAULT_URL = 'http://localhost:8080';
/** How long the service keeps a tus upload after its last request with bytes ends (decision 0012). */
const UPLOAD_IDLE_MS = 5 * 60_000;

interface Globals {
  apiUrl: string;
  apiKey?: string;
  json: boolean;
  quiet: boolean;
}

interface Io {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderrIsTty: boolean;
}

export async function main(argv: string[], io: Io): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command('media')
    .description('The media API from the command line: upload, run FFmpeg tasks, probe, follow jobs, export usage.')
    .option('--api-url <url>', 'the API (gateway) URL (env MEDIA_API_URL)', io.env.MEDIA_API_URL || DEFAULT_URL)
    // No default shown: --help must not print the key.
    .option('--api-key <key>', 'an API key (mk_...) or a whole Authorization value (env MEDIA_API_KEY)')
    .option('--json', "print the API's own JSON answers", false)
    .option('-q, --quiet', 'no progress or messages on stderr', false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(media --help lists the commands)')
    .addHelpText(
      'after',
      `
Environment: MEDIA_API_URL (default ${DEFAULT_URL}), MEDIA_API_KEY, ${NO_REUSE_ENV}=1 (upload local files again).
Exit codes: 0 done, 1 failed, 2 usage, 3 key or account (401/403), 4 not found (404),
5 refused (400/409), 6 busy (429/503 after retries), 7 server error or job failed, 8 no answer.`,
    );

  const globals = () => program.opts<Globals>();
  const out = (): Output => ({ json: globals().json, quiet: globals().quiet || globals().json, tty: io.stderrIsTty });
  const say = (line: string) => {
    if (!out().quiet) process.stderr.write(`${line}\n`);
  };
  const print = (value: unknown) => io.stdout(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
  const apiKey = () => {
    const key = globals().apiKey || io.env.MEDIA_API_KEY;
    if (!key) throw new UsageError('no API key: set MEDIA_API_KEY or pass --api-key');
    return key;
  };
  const client = () => {
    return new MediaClient({
      baseUrl: globals().apiUrl,
      apiKey: apiKey(),
      retry: { onRetry: ({ status, waitSec }) => say(`${status || 'no answer'}: retrying in ${waitSec} s`) },
    });
  };
  // Commander passes each command's arguments, then its options; the action's signature types them.
  const run =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A) => {
      code = await action(...args);
    };

  const resumeSentence = (name: string, e: Exclude<ResumeEvent, { kind: 'resumable' }>) =>
    e.kind === 'resumed'
      ? `resuming ${name} (${e.filePath}) at ${e.offset} of ${e.total} bytes: the service kept them from an interrupted upload`
      : `the interrupted upload of ${name} (${e.filePath}) cannot continue (${e.reason}): uploading from the start`;

  /**
   * Uploads a file into dirId (a new directory when undefined); an upload of it an earlier run
   * left unfinished there (anywhere, when undefined) continues if the service takes it.
   */
  async function upload(media: MediaClient, file: LocalFile, dirId?: string): Promise<Uploaded> {
    const meter = bytesMeter(out(), file.name, file.size);
    const resume = await resumeOptions(media, io.env, apiKey());
    let resumed = false;
    // Ctrl-C once the upload is recorded (resumable): say until when running the command again
    // continues it. The service keeps an upload 5 minutes after its last request with bytes ends;
    // the last answer's Upload-Expires may be long past during one long PATCH (the POST's), and
    // the PATCH cut now has no answer: the later of the two.
    let interrupted: (() => void) | undefined;
    const onResume = (e: ResumeEvent) => {
      if (e.kind === 'resumable') {
        if (interrupted) process.off('SIGINT', interrupted);
        interrupted = () => {
          const expires = Math.max(Date.parse(e.expiresAt), Date.now() + UPLOAD_IDLE_MS);
          const until = new Date(expires).toLocaleTimeString('en-GB', { hour12: false });
          // The bar hid the cursor on a terminal: show it again.
          process.stderr.write(
            `${io.stderrIsTty ? '\x1b[?25h' : ''}\ninterrupted: run the same command again to continue the upload of ${file.name} from where the service stopped; continue it before ${until}\n`,
          );
          process.exit(EXIT.interrupted);
        };
        process.once('SIGINT', interrupted);
        return;
      }
      if (e.kind === 'resumed') meter.resumed(e.offset);
      resumed = e.kind === 'resumed';
      say(resumeSentence(file.name, e));
    };
    try {
      const uploaded = await uploadHashed(media, file, dirId, (p) => meter.update(p.loaded), { resume, onResume });
      meter.done('uploaded');
      return { ...uploaded, resumed };
    } finally {
      if (interrupted) process.off('SIGINT', interrupted);
    }
  }
  // Uploads this CLI made, reused while the service keeps them (reuse-uploads.ts); off with --no-reuse or the env var.
  const uploadCache = (media: MediaClient, reuse: boolean) =>
    reuse && !io.env[NO_REUSE_ENV] ? new UploadCache(cacheDir(io.env), media.baseUrl, apiKey()) : undefined;
  const place = async (media: MediaClient, files: LocalFile[], reuse: boolean, dirId?: string) => {
    const cache = uploadCache(media, reuse);
    // An upload an earlier run left unfinished goes first: all the files follow it into its directory.
    const resume = dirId ? undefined : await resumeOptions(media, io.env, apiKey());
    const first = await continueUnfinished(files, resume, cache !== undefined, (f) => upload(media, f), say);
    if (first && cache) await recordUploads(media, cache, [first.uploaded]);
    const placed = await placeLocalFiles(
      media,
      files.filter((f) => f !== first?.file),
      { dirId: dirId ?? first?.dirId, cache, upload: (f, d) => upload(media, f, d), say },
    );
    if (first) placed.set(first.file.path, first.uploaded.registered.file.file_path);
    return placed;
  };
  /** Rethrows an API refusal in the command line's terms (cli-sentences.ts); --json keeps the API's words. */
  const inCliTerms =
    (cl: CommandLine | undefined) =>
    (err: unknown): never => {
      throw cl && !globals().json ? explainInCliTerms(err, cl) : err;
    };

  async function waitFor(media: MediaClient, jobId: string): Promise<Job> {
    const meter = jobMeter(out(), jobId);
    const job = await media.waitForJob(jobId, { onProgress: (j) => meter.update(j.status, j.progress) });
    meter.done(job.status);
    return job;
  }

  async function downloadAll(items: NonNullable<ProcessResult['result']>, dir: string) {
    await mkdir(dir, { recursive: true });
    const saved: string[] = [];
    for (const item of items) {
      const target = join(dir, basename(item.file_name));
      const meter = bytesMeter(out(), item.file_name, item.size_bytes);
      await downloadTo(item.download_url, target, (p) => meter.update(p.loaded));
      meter.done('downloaded');
      saved.push(target);
    }
    return saved;
  }

  program
    .command('upload')
    .description('upload local files; prints each file_path (the name tasks use)')
    .argument('<files...>', 'local files')
    .option('--dir <dirId>', 'the directory to upload into (default: a new one, shared by all the files)')
    .option('--name <name>', 'the name in the directory (one file only)')
    .action(
      run(async (files: string[], opts: { dir?: string; name?: string }) => {
        if (opts.name && files.length > 1) throw new UsageError('--name names one file; upload the others separately');
        const locals: LocalFile[] = [];
        for (const file of files) locals.push(await localFile(file, opts.name));
        const media = client();
        // An explicit upload always uploads (`run` and `probe` may reuse it later), except where an
        // earlier run of it stopped: it continues in that directory, the files it finished skipped.
        const cache = uploadCache(media, true);
        const resume = opts.dir ? undefined : await resumeOptions(media, io.env, apiKey());
        // An upload an earlier run left unfinished goes first: the others follow it into its directory.
        const first = await continueUnfinished(locals, resume, cache !== undefined, (f) => upload(media, f), say);
        if (first && cache) await recordUploads(media, cache, [first.uploaded]);
        let dirId = opts.dir ?? first?.dirId;
        for (const file of locals) {
          if (file === first?.file) {
            print(globals().json ? first.uploaded.registered : first.uploaded.registered.file.file_path);
            continue;
          }
          // The files the interrupted run finished there are not uploaded again.
          const done = first?.accepted && cache ? await uploadedIn(media, cache, file, first.dirId, resume) : undefined;
          if (done) {
            say(`already uploaded ${file.path}: ${done} (by the interrupted run of this command)`);
            const [dir, name] = [done.slice(0, done.indexOf('/')), done.slice(done.indexOf('/') + 1)];
            print(globals().json ? { ok: true, file: { dir_id: dir, file_name: name, file_path: done } } : done);
            continue;
          }
          const uploaded = await upload(media, file, dirId);
          dirId = uploaded.registered.file.dir_id;
          // Recorded at once: a run stopped during the next file finds this one whole when repeated.
          if (cache) await recordUploads(media, cache, [uploaded]);
          print(globals().json ? uploaded.registered : uploaded.registered.file.file_path);
        }
        return EXIT.ok;
      }),
    );

  program
    .command('run')
    .description('run an FFmpeg task: a task file, or inputs and one output (its options after --)')
    .argument('[taskFile]', 'a JSON file: the body of POST /ffmpeg/process, or the bare task')
    .argument('[outputOptions...]', 'after --: the output options, e.g. -- -c:v libx264 -crf 23')
    .option(
      '-i, --input <input>',
      'a file_path (<dir_id>/<name>), an https:// URL, or a local file (uploaded first); repeatable',
      collect,
      [],
    )
    .option('-o, --output <name>', 'the output file name')
    .option('--map <map>', 'a -map of the output; repeatable', collect, [])
    .option('--filter-complex <graph>', 'the task filter_complex')
    .option('--output-dir <dirId>', 'the directory for the outputs')
    .option('--async', 'queue it (POST /ffmpeg/process/async) and print the job id', false)
    .option('--wait', 'with --async: wait for the job, with its progress', false)
    .option('--webhook <url>', 'with --async: the webhook_url')
    .option('--download <dir>', 'download the outputs into this directory (waits for an async job)')
    .option('--no-reuse', `upload local inputs again even if the same bytes were uploaded before (env ${NO_REUSE_ENV}=1)`)
    .action(
      run(async (taskFile: string | undefined, outputOptions: string[], opts: TaskFlags & RunFlags) => {
        let task: Task;
        let webhookUrl = opts.webhook;
        let commandLine: CommandLine | undefined;
        let local = new Map<string, LocalFile>();
        if (taskFile && !opts.input?.length) {
          if (outputOptions.length) throw new UsageError('output options after -- go with --input/--output, not with a task file');
          const read = await readTaskFile(taskFile);
          task = read.task;
          webhookUrl ??= read.webhookUrl;
        } else {
          if (taskFile) outputOptions = [taskFile, ...outputOptions];
          if (!opts.input?.length) throw new UsageError('give a task file, or --input and --output');
          commandLine = { inputs: opts.input };
          task = taskFromFlags(opts, outputOptions, opts.input);
          local = await localInputs(opts.input); // every local file checked before any request
        }
        const media = client();
        if (commandLine) {
          // A task's inputs share one directory: that of a file_path input, or one that holds them all.
          const fixedDir = commandLine.inputs
            .filter((i) => !local.has(i))
            .map(filePathDir)
            .find(Boolean);
          const placed = await place(media, [...local.values()], opts.reuse, fixedDir);
          task.inputs = commandLine.inputs.map((input) => ({ file_path: placed.get(input) ?? input }));
        }
        if (!opts.async) {
          const result = await media.process(task).catch(inCliTerms(commandLine));
          say(`done: ${result.result.length} output(s), ${result.usage.gb_sec} GB-s, $${result.amount_usd}`);
          if (opts.download) {
            const saved = await downloadAll(result.result, opts.download);
            print(globals().json ? result : saved.join('\n'));
          } else print(globals().json ? result : result.result.map((r) => `${r.file_name}\t${r.size_bytes}\t${r.download_url}`).join('\n'));
          return EXIT.ok;
        }
        const submitted = await media.submit(task, { webhookUrl }).catch(inCliTerms(commandLine));
        if (!opts.wait && !opts.download) {
          print(globals().json ? submitted : submitted.job_id);
          return EXIT.ok;
        }
        say(`queued job ${submitted.job_id}`);
        const job = await waitFor(media, submitted.job_id);
        return finished(job, opts.download);
      }),
    );

  async function finished(job: Job, downloadDir?: string): Promise<number> {
    if (job.status !== 'completed') {
      if (globals().json) print(job);
      else process.stderr.write(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}\n`);
      return EXIT.server;
    }
    if (downloadDir) {
      const saved = await downloadAll(job.result ?? [], downloadDir);
      print(globals().json ? job : saved.join('\n'));
    } else print(globals().json ? job : (job.result ?? []).map((r) => `${r.file_name}\t${r.size_bytes}\t${r.download_url}`).join('\n'));
    return EXIT.ok;
  }

  program
    .command('probe')
    .description("ffprobe a file_path (<dir_id>/<name>), an https:// URL, or a local file (uploaded first); prints ffprobe's JSON")
    .argument('<input>')
    .option('--probe <json>', 'the probe object, e.g. \'{"format":["duration"]}\'')
    .option('--no-reuse', 'upload a local file again even if the same bytes were uploaded before')
    .action(
      run(async (input: string, opts: { probe?: string; reuse: boolean }) => {
        let probe: Record<string, unknown> | undefined;
        if (opts.probe) {
          try {
            probe = JSON.parse(opts.probe) as Record<string, unknown>;
          } catch {
            throw new UsageError('--probe must be a JSON object');
          }
        }
        const file = (await isRemoteInput(input)) ? undefined : await localFile(input);
        const media = client();
        const filePath = file ? (await place(media, [file], opts.reuse)).get(file.path)! : input;
        const res = await media.probe(filePath, probe).catch(inCliTerms({ inputs: [input] }));
        print(globals().json ? res : res.result);
        return EXIT.ok;
      }),
    );

  program
    .command('jobs')
    .description('list jobs, newest first')
    .option('--status <states>', 'only these states, comma-separated (pending,processing,completed,failed,cancelled)')
    .option('--limit <n>', '1 to 100 (default 20)', toInt)
    .option('--offset <n>', 'skip this many', toInt)
    .action(
      run(async (opts: { status?: string; limit?: number; offset?: number }) => {
        const res = await client().jobs({ status: opts.status, limit: opts.limit, offset: opts.offset });
        if (globals().json) print(res);
        else {
          print(res.jobs.map((j) => `${j.id}\t${j.status}\t${j.created_at}`).join('\n') || '(no jobs)');
          say(`${res.jobs.length} of ${res.pagination.total}`);
        }
        return EXIT.ok;
      }),
    );

  program
    .command('job')
    .description('show a job; --wait follows it to the end with its progress')
    .argument('<jobId>')
    .option('--wait', 'wait until it is completed, failed or cancelled', false)
    .option('--download <dir>', 'download its outputs into this directory (waits)')
    .action(
      run(async (jobId: string, opts: { wait: boolean; download?: string }) => {
        const media = client();
        if (!opts.wait && !opts.download) {
          print(await media.job(jobId));
          return EXIT.ok;
        }
        return finished(await waitFor(media, jobId), opts.download);
      }),
    );

  program
    .command('cancel')
    .description('cancel a pending job')
    .argument('<jobId>')
    .action(
      run(async (jobId: string) => {
        const res = await client().cancel(jobId);
        print(globals().json ? res : res.message);
        return EXIT.ok;
      }),
    );

  program
    .command('usage')
    .description("the account's usage rows: CSV (default) or JSON")
    .option('--month <yyyy-mm>', 'a calendar month (default: this month)')
    .option('--from <date>', 'with --to: a period instead of a month')
    .option('--to <date>')
    .option('--key <keyId>', 'one key only')
    .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
    .action(
      run(async (opts: { month?: string; from?: string; to?: string; key?: string; format: 'csv' | 'json' }) => {
        const media = client();
        const query = { month: opts.month, from: opts.from, to: opts.to, key_id: opts.key };
        if (opts.format === 'json' || globals().json) print(await media.usageRows(query));
        else io.stdout(await media.usageCsv(query));
        return EXIT.ok;
      }),
    );

  program
    .command('dirs')
    .description("the account's directories")
    .action(
      run(async () => {
        const res = await client().listDirectories();
        print(globals().json ? res : res.directories.map((d) => `${d.id}\tttl ${d.ttl}\t${d.added_on}`).join('\n') || '(no directories)');
        return EXIT.ok;
      }),
    );

  program
    .command('files')
    .description('the files of a directory')
    .argument('<dirId>')
    .action(
      run(async (dirId: string) => {
        const res = await client().listFiles(dirId);
        print(globals().json ? res : res.files.map((f) => `${dirId}/${f.file_name}\t${f.added_on}`).join('\n') || '(no files)');
        return EXIT.ok;
      }),
    );

  program
    .command('mcp')
    .description('serve the API as MCP tools on stdin/stdout, for AI agents (docs/api/mcp.md)')
    .option('--http <port>', 'serve Streamable HTTP on this port instead; each caller sends its own API key', toInt)
    .option('--host <address>', 'with --http: the address to listen on', '127.0.0.1')
    .action(
      run(async ({ http, host }: { http?: number; host: string }) => {
        await (http === undefined
          ? serveStdio(client(), { resume: (media) => resumeOptions(media, io.env, apiKey()) })
          : serveHttp({ apiUrl: globals().apiUrl, port: http, host, log: say }));
        return EXIT.ok;
      }),
    );

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const usage = err instanceof UsageError;
    if (globals().json && err instanceof MediaApiError)
      process.stderr.write(`${JSON.stringify({ ok: false, error: err.error, status: err.status, request_id: err.requestId ?? null })}\n`);
    else process.stderr.write(`media: ${err instanceof Error ? err.message : String(err)}\n`);
    return usage ? EXIT.usage : exitCodeOf(err);
  }
}

interface RunFlags {
  reuse: boolean;
  async: boolean;
  wait: boolean;
  webhook?: string;
  download?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function toInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`${value} is not a whole number`);
  return n;
}
