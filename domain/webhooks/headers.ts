/** Section 6.3: the headers of every core delivery (the signed payload's name, its id, its signature). */
export const WEBHOOK_HEADERS = {
  event: 'X-Service-Event',
  delivery: 'X-Service-Delivery',
  signature: 'X-Service-Signature',
} as const;
