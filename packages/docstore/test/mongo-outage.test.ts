// Which driver errors count as "MongoDB is unreachable" (503 and the breaker) and which are answers.
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { isMongoOutage } from '../src/mongo/outage.js';

const socketError = (code: string) => Object.assign(new Error('This socket has been ended by the other party'), { code });

test('a command written to a connection the server closed (raw EPIPE from the driver) is an outage', () => {
  expect(isMongoOutage(socketError('EPIPE'))).toBe(true);
  expect(isMongoOutage(socketError('ECONNRESET'))).toBe(true);
  expect(isMongoOutage(new MongoNetworkError('connection closed'))).toBe(true);
});

test('answers and programming errors are not outages', () => {
  expect(isMongoOutage(new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }))).toBe(false);
  expect(isMongoOutage(new MongoServerError({ code: 91, errmsg: 'shutting down' }))).toBe(true);
  expect(isMongoOutage(socketError('ENOENT'))).toBe(false);
  expect(isMongoOutage(new TypeError('x is undefined'))).toBe(false);
  expect(isMongoOutage({ code: 'EPIPE' })).toBe(false);
});
