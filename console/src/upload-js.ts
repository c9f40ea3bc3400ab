// The Files page's uploads (issue 44): tus-js-client (served by the console as /tus.min.js) sends
// each chosen or dropped file to a signed upload URL the console asks Storage for (POST
// /files/upload, bound to the session and its CSRF token). Uploads resume: after a dropped
// connection (tus retries, then the Resume button), and after a reload (choosing the same file
// again finds its upload URL in localStorage, while the URL lives).
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
  const fingerprint = (file) => ['media-console', pageDir || 'new', file.name, file.size, file.lastModified].join('/');
  // A stored upload URL is worth resuming while its signature has not expired.
  const live = (previous) => {
    try {
      return Number(new URL(previous.uploadUrl).searchParams.get('expires')) * 1000 > Date.now() + 5000;
    } catch {
      return false;
    }
  };

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
    const show = (text, action) => {
      view.state.textContent = text;
      view.button.hidden = !action;
      if (action) view.button.textContent = action;
      view.button.setAttribute('aria-label', (action || '') + ' ' + file.name);
    };
    const upload = new tus.Upload(file, {
      chunkSize,
      retryDelays: [0, 1000, 3000],
      removeFingerprintOnSuccess: true,
      fingerprint: async () => fingerprint(file),
      metadata: { filename: file.name },
      onProgress(sent, total) {
        view.bar.value = total ? (sent / total) * 100 : 100;
        show(size(sent) + ' of ' + size(total), 'Pause');
      },
      onError(err) {
        running = false;
        const said = err.originalResponse && err.originalResponse.getBody();
        show('Interrupted: ' + (said || 'the connection dropped') + '. Resume continues where it stopped.', 'Resume');
      },
      onSuccess() {
        running = false;
        view.bar.value = 100;
        show('Uploaded', '');
        const link = document.createElement('a');
        link.href = '/files/' + encodeURIComponent(dir);
        link.textContent = pageDir ? 'See it listed' : 'Open its directory';
        view.li.append(link);
      },
    });
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
      const previous = await upload.findPreviousUploads();
      for (const p of previous.filter((p) => !live(p))) await storage.removeUpload(p.urlStorageKey);
      const resumable = previous.find(live);
      if (resumable) {
        upload.resumeFromPreviousUpload(resumable);
        // The signed URL is also its own creation endpoint (docs/api/files.md).
        upload.options.endpoint = resumable.uploadUrl;
        if (!dir && resumable.metadata) dir = resumable.metadata.dir_id || dir;
        show('Resuming an earlier upload…', 'Pause');
      } else {
        show('Starting…', '');
        const registered = (registering = registering.catch(() => undefined).then(() => register(file.name)));
        const { url, dir_id } = await registered;
        upload.options.endpoint = url;
        upload.options.metadata.dir_id = dir_id;
        show('Starting…', 'Pause');
      }
      running = true;
      upload.start();
    } catch (err) {
      show('Not uploaded: ' + err.message, '');
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
