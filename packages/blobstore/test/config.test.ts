import { blobStoreConfigFromEnv, createBlobStore } from '../src/index.js';

const defaults = { dataDir: '/var/lib/media', publicBaseUrl: 'http://127.0.0.1:8080', signingSecret: 'secret' };
const local = { root: '/var/lib/media/blobs', publicBaseUrl: 'http://127.0.0.1:8080', signingSecret: 'secret' };

describe('blobStoreConfigFromEnv', () => {
  it('uses the local disk without S3_BUCKET', async () => {
    const config = blobStoreConfigFromEnv({ S3_BUCKET: '  ' }, defaults);
    expect(config).toEqual({ local });
    expect((await createBlobStore(config)).kind).toBe('local');
  });

  it('reads a full S3 configuration', async () => {
    const config = blobStoreConfigFromEnv(
      {
        S3_BUCKET: 'media-files',
        S3_ENDPOINT: 'http://minio:9000/',
        S3_REGION: 'eu-west-1',
        S3_ACCESS_KEY_ID: 'AKIA',
        S3_SECRET_ACCESS_KEY: 'shh',
        S3_FORCE_PATH_STYLE: 'TRUE',
        S3_PUBLIC_ENDPOINT: 'https://files.example.com',
      },
      defaults,
    );
    expect(config.s3).toEqual({
      bucket: 'media-files',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      accessKeyId: 'AKIA',
      secretAccessKey: 'shh',
      forcePathStyle: true,
      publicEndpoint: 'https://files.example.com',
    });
    const store = await createBlobStore(config);
    expect(store.kind).toBe('s3');
    if (store.kind === 's3') store.destroy();
  });

  it('defaults the region and leaves credentials to the AWS chain', () => {
    expect(blobStoreConfigFromEnv({ S3_BUCKET: 'media' }, defaults).s3).toEqual({ bucket: 'media', region: 'us-east-1' });
  });

  it.each([
    [{ S3_BUCKET: 'b1x', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT "minio:9000" must be an http or https URL.'],
    [{ S3_BUCKET: 'b1x', S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT "not a url" is not a URL; expected for example http://127.0.0.1:9000.'],
    [
      { S3_BUCKET: 'b1x', S3_PUBLIC_ENDPOINT: 'http://u:p@host' },
      'S3_PUBLIC_ENDPOINT "http://u:p@host" must not carry credentials, a query or a fragment.',
    ],
    [{ S3_BUCKET: 'b1x', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE must be "true" or "false", not "yes".'],
    [
      { S3_BUCKET: 'b1x', S3_ACCESS_KEY_ID: 'AKIA' },
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both left out to use the default AWS credential chain).',
    ],
    [
      { S3_BUCKET: 'Bad_Bucket' },
      'S3_BUCKET "Bad_Bucket" is not a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens).',
    ],
    [{ S3_BUCKET: 'b1x', S3_REGION: 'eu west' }, 'S3_REGION "eu west" is not a valid region name.'],
    [{ S3_ENDPOINT: 'http://minio:9000', S3_REGION: 'eu-west-1' }, 'S3_BUCKET is required when S3_ENDPOINT, S3_REGION are set.'],
  ])('refuses %j', (env, message) => {
    expect(() => blobStoreConfigFromEnv(env, defaults)).toThrow(new Error(message));
  });
});
