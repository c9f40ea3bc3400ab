// The Files page's uploads (issue 44): tus-js-client (served by the console as /tus.min.js) sends
// each chosen or dropped file to a signed upload URL the console asks Storage for (POST
// /files/upload, bound to the session and its CSRF token). Uploads resume: after a dropped
// connection (tus retries, then the Resume button), and after a reload (choosing the same file
// again finds its upload URL in localStorage, keyed by the signed-in account too). Whether a kept
// upload can go on is Storage's to say (a HEAD): its expiry is renewed by each part. One it
// refuses (expired, stored already, gone) is forgotten, and choosing the file starts a new one.
// Signing out forgets them all (console-js.ts).
/** What the page's upload fingerprints begin with. */
const FINGERPRINT_PREFIX = 'media-console';
/** tus-js-client's localStorage keys for the console's uploads begin with this (signing out clears them). */
export const UPLOAD_STORAGE_PREFIX = `tus::${FINGERPRINT_PREFIX}/`;

export const UPLOAD_JS = `
(() => {
  const box = document.querySelector('[data-upload]');
  if (!box || !window.tus || !tus.isSupported) return;
  box.hidden = false;
  const list = box.querySelector('[data-uploads]');
  const input = box.querySelector('input[type=file]');
  const drop = box.querySelector('[data-drop]');
  const pageDir = box.dataset.dir || '';
  let dir = pageDir;
  const chunkSize = Number(box.dataset.chunk) || Infinity;
  const storage = tus.defaultOptions.urlStorage;
  // One registration at a time: the first file of a new directory names it for the others.
  let registering = Promise.resolve();

  const size = (n) => {
    const units = ['B', 'kB', 'MB', 'GB', 'TB'];
    let u = 0;
    while (n >= 1000 && u < units.length - 1) { n /= 1000; u++; }
    return (u === 0 ? n : n.toFixed(n < 10 ? 1 : 0)) + ' ' + units[u];
  };
  // Per account: another account signed in on this browser never finds this one's uploads.
  const fingerprint = (file) =>
    [${JSON.stringify(FINGERPRINT_PREFIX)}, box.dataset.account || '', pageDir || 'new', file.name, file.size, file.lastModified].join('/');
  // Storage says whether a kept upload goes on (its expiry moves with each part); only records
  // older than a directory can live are dropped unasked.
  const stale = (p) => !(Date.parse(p.creationTime) > Date.now() - 7 * 24 * 3600 * 1000);
  const forget = async (file, url) => {
    for (const p of await storage.findUploadsByFingerprint(fingerprint(file)))
      if (!url || p.uploadUrl === url) await storage.removeUpload(p.urlStorageKey);
  };
  const statusOf = (err) => (err && err.originalResponse ? err.originalResponse.getStatus() : 0);
  const bodyOf = (err) => (err && err.originalResponse && err.originalResponse.getBody()) || '';
  // A refusal that will not change (expired or foreign URL, stored already, gone, too big): no
  // Resume. A lock (423), a 403 for another reason (an account not active), a failure of the
  // service (5xx) or the network: Resume, and the URL kept.
  const final = (status, body) =>
    status >= 400 && status < 500 && status !== 423 && !(status === 409 && /offset/i.test(body)) &&
    (status !== 403 || /This URL has expired\\.|The signature of this URL is not valid\\./.test(body));
  // An answer to HEAD has no body: why a 403 there is asked with a PATCH of no bytes (the URL is
  // checked before anything else, and nothing is changed), as the Node client does.
  const why = async (err, url) => {
    const body = bodyOf(err);
    if (body || statusOf(err) !== 403 || !url || !err.originalRequest || err.originalRequest.getMethod() !== 'HEAD') return body;
    try {
      const res = await fetch(url, {
        method: 'PATCH',
        headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
        body: new Uint8Array(0),
      });
      return res.status === 403 ? await res.text() : '';
    } catch {
      return '';
    }
  };
  const sentence = (text) => text.trim().replace(/([^.!?])$/, '$1.');

  async function register(name) {
    const body = new URLSearchParams({ _csrf: box.dataset.csrf, file_name: name });
    if (dir) body.set('dir_id', dir);
    const res = await fetch(box.dataset.upload, { method: 'POST', body, headers: { accept: 'application/json' } });
    const answer = await res.json().catch(() => ({ message: 'The console refused this upload: reload the page and try again.' }));
    if (!res.ok) throw new Error(answer.message);
    dir = answer.dir_id;
    return answer;
  }

  function row(file) {
    const li = document.createElement('li');
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = file.name;
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', 'Upload of ' + file.name);
    const state = document.createElement('span');
    state.className = 'state';
    state.setAttribute('role', 'status');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.hidden = true;
    li.append(name, bar, state, button);
    list.append(li);
    return { li, bar, state, button };
  }

  async function add(file) {
    const view = row(file);
    let running = false;
    let upload;
    // This row's directory: the one its upload was registered in (another file's may differ).
    let rowDir = pageDir;
    // Set while a kept upload is asked for (HEAD): refused, the file starts anew.
    let resuming = false;
    const show = (text, action) => {
      view.state.textContent = text;
      view.button.hidden = !action;
      if (action) view.button.textContent = action;
      view.button.setAttribute('aria-label', (action || '') + ' ' + file.name);
    };
    const fail = (err) => {
      running = false;
      show('Not uploaded: ' + err.message, '');
    };
    const make = (endpoint, metadata) =>
      new tus.Upload(file, {
        endpoint,
        chunkSize,
        retryDelays: [0, 1000, 3000],
        removeFingerprintOnSuccess: true,
        fingerprint: async () => fingerprint(file),
        metadata,
        onShouldRetry: (err) => statusOf(err) !== 403 && !final(statusOf(err), bodyOf(err)) && navigator.onLine !== false,
        onUploadUrlAvailable() {
          resuming = false;
          // The upload exists: its URL is never a creation again (a refusal there is final).
          upload.options.endpoint = null;
        },
        onProgress(sent, total) {
          view.bar.value = total ? (sent / total) * 100 : 100;
          show(size(sent) + ' of ' + size(total), 'Pause');
        },
        async onError(err) {
          running = false;
          const body = await why(err, upload.url);
          if (!final(statusOf(err), body)) {
            show('Interrupted: ' + sentence(body || 'the connection dropped') + ' Resume continues where it stopped.', 'Resume');
            return;
          }
          const url = upload.url;
          const forgotten = forget(file, resuming ? undefined : url).catch(() => undefined);
          if (resuming) {
            // The kept upload is over (expired, stored, gone): this choice is a new upload.
            resuming = false;
            forgotten.then(fresh).catch(fail);
            return;
          }
          show('Not uploaded: ' + sentence(body || err.message) + ' Choose the file again to upload it anew.', '');
        },
        onSuccess() {
          running = false;
          view.bar.value = 100;
          show('Uploaded', '');
          const link = document.createElement('a');
          link.href = '/files/' + encodeURIComponent(rowDir);
          link.textContent = pageDir ? 'See it listed' : 'Open its directory';
          view.li.append(link);
        },
      });
    async function fresh() {
      show('Starting…', '');
      const registered = (registering = registering.catch(() => undefined).then(() => register(file.name)));
      const { url, dir_id } = await registered;
      rowDir = dir_id;
      upload = make(url, { filename: file.name, dir_id });
      show('Starting…', 'Pause');
      running = true;
      upload.start();
    }
    view.button.addEventListener('click', () => {
      if (running) {
        running = false;
        upload.abort();
        show('Paused at ' + size(Math.round((view.bar.value / 100) * file.size)), 'Resume');
      } else {
        running = true;
        show('Resuming…', 'Pause');
        upload.start();
      }
    });
    try {
      const previous = await storage.findUploadsByFingerprint(fingerprint(file));
      for (const p of previous.filter(stale)) await storage.removeUpload(p.urlStorageKey);
      const kept = previous.filter((p) => !stale(p)).sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime))[0];
      if (!kept) return await fresh();
      // No endpoint: a refused HEAD is not followed by a creation on the old URL (onError starts anew).
      upload = make(null, { ...kept.metadata });
      upload.resumeFromPreviousUpload(kept);
      rowDir = (kept.metadata && kept.metadata.dir_id) || pageDir;
      if (!dir) dir = rowDir;
      resuming = true;
      show('Resuming an earlier upload…', 'Pause');
      running = true;
      upload.start();
    } catch (err) {
      fail(err);
    }
  }

  const addAll = (files) => { for (const f of files) add(f); };
  input.addEventListener('change', () => { addAll(input.files); input.value = ''; });
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    addAll(e.dataTransfer.files);
  });
})();
`;
