import { defineEntity, p } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';

/** Every row we own: a UUID primary key and its creation time. */
export const BaseSchema = defineEntity({
  name: 'BaseEntity',
  abstract: true,
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export abstract class BaseEntity extends BaseSchema.class {}
BaseSchema.setClass(BaseEntity);
