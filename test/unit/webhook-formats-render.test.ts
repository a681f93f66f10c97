// D13: what each format sends for one stored event (domain/webhooks/formats.ts), as bytes.
import { describe, expect, it } from '@jest/globals';
import { formatHeaders, renderBody } from '../../domain/webhooks/formats';

const stored = '{"event":"quote.created","id":"0b6f3c1e-9d4a-4f7e-8a2b-1c3d5e7f9a0b","organization_id":"5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6","created_at":"2026-11-24T12:00:00.123Z","data":{"id":"q","reference":"Q-7"}}';
const live = { apiVersion: '2026-04-15', livemode: true };

describe('renderBody', () => {
  it('core: the stored bytes themselves, whatever they are', () => {
    expect(renderBody('core', stored, live)).toBe(stored);
    const spaced = stored.replace('{"event"', '{ "event"');
    expect(renderBody('core', spaced, live)).toBe(spaced);
  });
  it('field: event, event_id, occurred_at, data (document 001 section 6.1)', () => {
    expect(renderBody('field', stored, live)).toBe(
      '{"event":"quote.created","event_id":"0b6f3c1e-9d4a-4f7e-8a2b-1c3d5e7f9a0b","occurred_at":"2026-11-24T12:00:00.123Z","data":{"id":"q","reference":"Q-7"}}',
    );
  });
  it('events: id, type, apiVersion, createdAt, livemode, data {object, previousAttributes} (section 6.2); a sandbox workspace is not live', () => {
    expect(renderBody('events', stored, { apiVersion: '2026-01-20', livemode: false })).toBe(
      '{"id":"0b6f3c1e-9d4a-4f7e-8a2b-1c3d5e7f9a0b","type":"quote.created","apiVersion":"2026-01-20","createdAt":"2026-11-24T12:00:00.123Z","livemode":false,"data":{"object":{"id":"q","reference":"Q-7"},"previousAttributes":null}}',
    );
  });
  it('events: prior values the event carries become previousAttributes, not part of the object', () => {
    const withPrevious = stored.replace('"data":{"id":"q","reference":"Q-7"}', '"data":{"id":"d","stops":[],"previousAttributes":{"stops":[1]}}');
    expect(JSON.parse(renderBody('events', withPrevious, live)).data).toEqual({ object: { id: 'd', stops: [] }, previousAttributes: { stops: [1] } });
  });
  it('is the same on every call (every attempt and replay carries the same bytes)', () => {
    for (const format of ['core', 'field', 'events'] as const) expect(renderBody(format, stored, live)).toBe(renderBody(format, stored, live));
  });
});

describe('formatHeaders', () => {
  const event = { id: '0b6f3c1e-9d4a-4f7e-8a2b-1c3d5e7f9a0b', event: 'quote.created' };
  it.each([
    ['core', { 'X-Service-Event': 'quote.created', 'X-Service-Delivery': event.id, 'X-Service-Signature': 't=1,v1=ab' }],
    ['field', { 'X-Service-Signature': 't=1,v1=ab', 'X-Service-Event-Id': event.id }],
    ['events', { 'Service-Signature': 't=1,v1=ab' }],
  ] as const)('%s', (format, headers) => expect(formatHeaders(format, event, 't=1,v1=ab')).toEqual(headers));
  it.each([
    ['core', 'X-Service-Test'],
    ['field', 'X-Service-Test'],
    ['events', 'Service-Test'],
  ] as const)('%s: a test event (the deliveries page) says so in %s', (format, header) => {
    expect(formatHeaders(format, { ...event, test: true }, 't=1,v1=ab')).toEqual({ ...formatHeaders(format, event, 't=1,v1=ab'), [header]: 'true' });
    expect(Object.keys(formatHeaders(format, { ...event, test: false }, 't=1,v1=ab'))).not.toContain(header);
  });
});
