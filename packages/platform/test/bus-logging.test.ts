// An event a handler fails on every delivery is given up on: that must reach the service's JSON
// log, with the subject, not the console.
import { jest } from '@jest/globals';
import { connectBusAtStart } from '../src/index.js';
import { captureLog } from './log-capture.js';

test('an event dropped after its last delivery is a warn line in the JSON log', async () => {
  const { logger, lines } = captureLog('info');
  const consoleWarn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const bus = await connectBusAtStart(undefined, logger);
  try {
    let deliveries = 0;
    await bus.subscribe(
      'media.test.failing',
      async () => {
        deliveries++;
        throw new Error('the handler cannot take it');
      },
      { durable: 'failing', maxDeliver: 2, backoffMs: [10] },
    );
    await bus.publish('media.test.failing', new Uint8Array([1]), { msgId: 'one' });
    for (let i = 0; i < 200 && !lines.some((l) => l.msg === 'event dropped after its last delivery'); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(deliveries).toBe(2);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        subject: 'media.test.failing',
        deliveries: 2,
        msg: 'event dropped after its last delivery',
        err: expect.objectContaining({ message: 'the handler cannot take it' }),
      }),
    );
    expect(consoleWarn).not.toHaveBeenCalled();
  } finally {
    consoleWarn.mockRestore();
    await bus.close();
  }
});
