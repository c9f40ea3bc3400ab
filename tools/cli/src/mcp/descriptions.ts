// What an agent reads before it calls a tool: the task model, where the policy is, what the error
// sentences mean. One home for these texts; the tools only reference them.

export const SERVER_INSTRUCTIONS = `Runs FFmpeg and ffprobe on the media API of this service.
Flow: upload_file (a local file or an https:// URL) -> run_task (sync, or async then job_status until it ends) -> the result's download_url links (valid 1 hour).
Public https:// URLs may also be named directly as task inputs or probed, without an upload.
A refused request comes back as a tool error with the service's sentence: it names the refused token, why, and what to use instead. Fix the task as it says and call again; nothing was charged.
The FFmpeg policy (every option, filter, codec and format, and its verdict): policy_lookup answers it for one name; in full, docs/ffmpeg-policy.md in the service's repository (packages/media/policy/ffmpeg-policy.json for tools).`;

/** Added over HTTP, where upload_file is not offered. */
export const REMOTE_INSTRUCTIONS = `Over HTTP there is no upload_file: this server does not read its host's files or fetch URLs for a remote caller. Name public https:// URLs as task inputs (the service fetches them with its own checks), or upload with the media CLI or the API (POST /file) and use the file_path.`;

export const TASK_MODEL = `A task is JSON:
{"inputs": [{"file_path": "<dir_id>/<file_name> or https://...", "options": ["-ss", "5"]}],
 "outputs": [{"file": "out.mp4", "options": ["-c:v", "libx264", "-crf", "23"], "maps": ["0:v:0", "0:a?"]}],
 "filter_complex": "[0:v]scale=640:-2[v]",
 "output_dir_id": "dir_..."}
- inputs: 1 to 100. file_path is what upload_file returned (dir_id/file_name) or a public https:// URL. All uploaded inputs must be in one directory (upload them with the same dir_id). inputs[].options go before that input's -i (seeks, -t, -f, -r...).
- outputs: 1 to 50. file is a bare file name (no directory), not equal to an input's name; its extension picks the container. options are FFmpeg's output options, one argument per array item (["-vf", "scale=320:-2"], never one string with spaces). maps are -map arguments without "-map" ("0:v:0", "[v]" for a filter_complex label).
- filter_complex: one graph for the task; inputs are [0], [1]... in the order of inputs (e.g. [0:v][1:v]overlay=10:10[v]); map its output labels in outputs[].maps.
- Never put -i, file names or URLs in options: inputs come only from task.inputs, outputs only from outputs[].file.
- Numbered outputs (thumb_%03d.png) write many files, one video stream; add -frames:v to bound them (the service bounds them otherwise; at most 1,000 files a task). HLS and DASH outputs return the playlist and every segment. An output with -f null (file "report.txt") returns the filters' report (loudnorm, volumedetect...).
- For browser-playable H.264 add ["-pix_fmt", "yuv420p"].
- Every option, filter and codec is judged before anything runs; a refusal is a 400 sentence naming the token and the allowed alternative. Check a name first with policy_lookup; the full policy is docs/ffmpeg-policy.md in the service's repository.`;

export const ERRORS = `Errors come back as tool errors "<status>: <the service's sentence>":
400 the task or a field is wrong (the sentence says which and how to fix it); 404 a directory, file or job that is missing, expired or not this account's; 409 a name already uploaded, or a job that is no longer pending; 403 a file over 5 GB or the account is not active; 429/503 busy (already retried; try later or use async); 500 FFmpeg failed (the sentence carries ffmpeg's error; the same task fails again) or the job timed out. Errors are never charged.`;

export const DESCRIPTIONS = {
  upload_file: `Uploads a local file (path) or the bytes of a public https:// URL (url) into a directory of the service and answers its file_path ("<dir_id>/<file_name>"), the name tasks and probes use.
Give dir_id to put several files in one directory: a task's uploaded inputs must all be in one directory. Without dir_id a new directory is made (files expire with it, after 1 day by default).
A URL needs no upload to be used once: name it directly as a task input or probe it. Upload it when several tasks use it. A URL upload needs the server to send Content-Length.
A local file upload that was cut off (this server stopped) continues where the service stopped when the same file is uploaded again while the service keeps the upload (5 minutes after its last request), into the same file_path (resumed_at_bytes in the answer).`,

  run_task: `Runs an FFmpeg task on the service.
async=false (default): waits for the result (good for runs of seconds); answers each output's file_name, size_bytes and download_url (valid 1 hour), the usage and the charge.
async=true: queues it and answers job_id at once; follow it with job_status (wait_sec lets one call wait for the end). Use async for anything that may take over a minute.
${TASK_MODEL}
${ERRORS}`,

  probe_media: `Runs ffprobe on a stored file ("<dir_id>/<file_name>") or a public https:// URL and answers ffprobe's JSON (charged like a task, by size and time).
probe selects what to report: section names (format, streams, chapters, programs, frames, packets, error) mapped to arrays of entry names ([] = every entry), plus controls: select_streams ("v:0"), read_intervals ("%+#100", "10%+5"; required by frames, packets, count_frames and count_packets; each interval within 30 s or 3000 frames), count_frames and count_packets (booleans, need the streams section), analyzeduration (seconds, up to 60), probesize (bytes, up to 50000000).
Without probe: format and streams with every entry. Example: {"format": ["duration", "size"], "streams": ["codec_type", "codec_name", "width", "height"]}.
A result over 20,000 characters is cut: ask for fewer entries or a shorter read_intervals.
${ERRORS}`,

  job_status: `The state of an async job: pending, processing (with progress: percent, fps, speed, eta_sec once ffmpeg reports), completed (result download_url links, usage, amount_usd), failed (error: the service's sentence) or cancelled.
wait_sec (0 to 50) waits up to that long for the job to end before answering, so one call can replace several polls.`,

  cancel_job: `Cancels a job that is still pending (nothing is charged). A job that is already processing cannot be cancelled: 409 "Cannot cancel job in 'processing' status...".`,

  list_jobs: `Lists the account's jobs (sync and async; probes are not listed), newest first: id, status, created_at, completed_at, input_count, output_count, has_error. Filter by status (comma-separated states); page with limit (1 to 100, default 20) and offset.`,

  usage: `The account's charged requests for a period (default: the current UTC month; or month YYYY-MM; or from and to, dates or ISO 8601 times, both inclusive): totals (requests, gb_sec, amount_usd) and the latest rows (request_id, completed_at, key_id, gb_sec, amount_usd). Price: USD 0.01332 per GB-second, gb_sec = (input GB + output GB) x processing seconds; only successful requests are charged. Also this month's used gb_sec, the account's limits and its jobs in progress.`,

  list_files: `Without dir_id: the account's live directories (id, ttl, added_on). With dir_id: the files of that directory (file_path, added_on), to name them in tasks or get a download link.`,

  policy_lookup: `The service's verdict on one FFmpeg name before you use it in a task: a filter, encoder, decoder, muxer, demuxer, bitstream filter or command-line option, with why it is refused and what to use instead, or the bounds and the options it takes. From the published policy (docs/ffmpeg-policy.md); the service still judges every task.`,

  download_link: `A fresh download URL (valid 5 minutes) for a stored file ("<dir_id>/<file_name>"), with its size and type: for a file whose task result link has lapsed, or an uploaded file.`,
} as const;
