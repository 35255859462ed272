import { NO_QUEUE_CHOICE, queueFields } from './QueueOptions';

describe('queueFields', () => {
  it('sends nothing for an untouched choice', () => {
    expect(queueFields(NO_QUEUE_CHOICE)).toEqual({});
  });

  it('sends the priority, the trimmed key and cancel_in_progress only with a key', () => {
    expect(queueFields({ priority: '5', concurrencyKey: ' main ', cancelInProgress: true })).toEqual({
      priority: 5,
      concurrency_key: 'main',
      concurrency_mode: 'cancel_in_progress',
    });
    expect(queueFields({ priority: '', concurrencyKey: '  ', cancelInProgress: true })).toEqual({});
  });
});
