// NATS_URL -> the NATS client's options: the client itself drops credentials and schemes.
import { natsConnectOptions } from '../src/jetstream/nats-url.js';

test('one server, a seed list, default port, IPv6', () => {
  expect(natsConnectOptions('nats://127.0.0.1:4222')).toEqual({ servers: ['127.0.0.1:4222'] });
  expect(natsConnectOptions('nats://n1, nats://n2:4333')).toEqual({ servers: ['n1:4222', 'n2:4333'] });
  expect(natsConnectOptions('nats://[::1]:4222')).toEqual({ servers: ['[::1]:4222'] });
});

test('user:password@ and token@ become credentials, percent-decoded', () => {
  expect(natsConnectOptions('nats://app:p%40ss%3Aw0rd@n1:4222')).toEqual({ servers: ['n1:4222'], user: 'app', pass: 'p@ss:w0rd' });
  expect(natsConnectOptions('nats://s3cr3t-token@n1')).toEqual({ servers: ['n1:4222'], token: 's3cr3t-token' });
  // Given once for a seed list is enough; given differently is a mistake.
  expect(natsConnectOptions('nats://app:pw@n1,nats://n2')).toEqual({ servers: ['n1:4222', 'n2:4222'], user: 'app', pass: 'pw' });
  expect(() => natsConnectOptions('nats://app:pw@n1,nats://app:other@n2')).toThrow('the servers give different credentials');
});

test('tls:// makes TLS required (the client ignores schemes)', () => {
  expect(natsConnectOptions('tls://n1:4222')).toEqual({ servers: ['n1:4222'], tls: {} });
  expect(natsConnectOptions('nats://n1,tls://n2')).toMatchObject({ tls: {} });
});

test('what the node client cannot use is refused up front', () => {
  expect(() => natsConnectOptions('ws://n1:8080')).toThrow('"ws://" is not supported (nats:// or tls://)');
  expect(() => natsConnectOptions('wss://n1')).toThrow('"wss://" is not supported');
  expect(() => natsConnectOptions('n1:4222')).toThrow('each server must start with nats:// or tls://');
  expect(() => natsConnectOptions('app:secret@n1:4222')).toThrow('each server must start with nats:// or tls://');
  expect(() => natsConnectOptions('nats://app:pa/ss@n1')).toThrow('a server URL does not parse');
  expect(() => natsConnectOptions('nats://n1:99999')).toThrow('a server URL does not parse');
  expect(() => natsConnectOptions('nats://n1/path')).toThrow('n1 has a path or query');
  expect(() => natsConnectOptions(' , ')).toThrow('no server given');
});
