// The console's one script: enhancements only (copy buttons, live job progress); every page
// works without it. On the page signing out leads to, it forgets the uploads this browser kept
// (upload-js.ts): the next account signed in here finds none of them.
import { UPLOAD_STORAGE_PREFIX } from './upload-js.js';

export const CONSOLE_JS = `
document.addEventListener('click', async (e) => {
  const button = e.target.closest('[data-copy]');
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy';
  }
});
document.addEventListener('submit', (e) => {
  const ask = e.target.dataset.confirm;
  if (ask && !confirm(ask)) e.preventDefault();
});
for (const b of document.querySelectorAll('[data-copy]')) b.hidden = false;
const live = document.querySelector('[data-live]');
if (live) setTimeout(() => location.reload(), Number(live.dataset.live) || 2000);
if (document.querySelector('[data-signed-out]')) {
  try {
    for (const key of Object.keys(localStorage)) if (key.startsWith(${JSON.stringify(UPLOAD_STORAGE_PREFIX)})) localStorage.removeItem(key);
  } catch {}
}
`;
