import { Code, ConnectError } from '@connectrpc/connect';
import { ERROR_KINDS, Errors, toConnectError, toHttpError } from '../src/errors.js';

test('a domain error keeps its status and text across the RPC boundary', () => {
  const cases = [
    [Errors.authHeaderRequired(), 401],
    [Errors.invalidApiKey(), 401],
    [Errors.suspended('help@x'), 403],
    [Errors.rateLimited(7), 429],
    [Errors.directoryNotFound(), 404],
    [Errors.fileExists(), 409],
    [Errors.cannotCancel('processing'), 409],
    [Errors.ffmpegFailed(1, 'Invalid data'), 500],
    [Errors.tooBusy(3), 503],
    [Errors.invalidJson(), 400],
  ] as const;
  for (const [err, status] of cases) {
    const overWire = toConnectError(err);
    const http = toHttpError(overWire);
    expect({ status: http.status, message: http.message }).toEqual({ status, message: err.message });
    expect(http.retryAfterSec).toBe(err.retryAfterSec);
  }
});

test('spec texts', () => {
  expect(Errors.fileTooLarge('a.mp4', 6_000_000_000).message).toBe("File 'a.mp4' size (6000.00 MB) exceeds max file size limit of 5 GB.");
  expect(Errors.cannotCancel('completed').message).toBe("Cannot cancel job in 'completed' status. Only pending jobs can be cancelled.");
  expect(Errors.ffmpegFailed(234, 'x').message).toBe('FFmpeg command failed with exit code 234: x');
});

test('unexpected errors never leak their text', () => {
  const err = toConnectError(new Error('secret path /var/lib/x'));
  expect(err.code).toBe(Code.Internal);
  expect(toHttpError(err)).toMatchObject({ status: 500, message: 'Internal error. Retry the request.' });
  expect(toHttpError(new TypeError('boom')).message).toBe('Internal error. Retry the request.');
});

test('transport failures become 503', () => {
  expect(toHttpError(new ConnectError('connect ECONNREFUSED', Code.Unavailable))).toMatchObject({ status: 503, retryAfterSec: 5 });
});

test('every kind that crosses RPCs has a distinct Connect code', () => {
  const codes = Object.values(ERROR_KINDS)
    .map((k) => k.code)
    .filter((c) => c !== null);
  expect(new Set(codes).size).toBe(codes.length);
});
