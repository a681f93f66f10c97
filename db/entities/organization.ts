import { defineEntity, p } from '@mikro-orm/postgresql';
import { BaseEntity } from './base';

/** A tenant: one contractor's workspace, chosen at login by its subdomain. */
export const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  extends: BaseEntity,
  properties: {
    name: p.string(),
    subdomain: p.string().unique(),
    quoteValidityDays: p.integer().default(30),
  },
});

export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);
