// undici (about 110 modules) is needed only when a URL input is fetched or a webhook is sent:
// loaded on first use, so the processes and test files that do neither never load it.
let loading: Promise<typeof import('undici')> | undefined;

export const undici = (): Promise<typeof import('undici')> => {
  loading ??= import('undici');
  return loading;
};
