import { defineEntity, p } from '@mikro-orm/postgresql';
import { BaseEntity } from './base';
import { Organization } from './organization';

export const ROLES = ['ADMIN', 'SALES', 'TECHNICIAN'] as const;
export type Role = (typeof ROLES)[number];

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  extends: BaseEntity,
  properties: {
    organization: () => p.manyToOne(Organization).fieldName('organization_id'),
    email: p.string(),
    fullName: p.string(),
    role: p.string().$type<Role>(),
    passwordHash: p.string().hidden().lazy(),
    active: p.boolean().default(true),
    lastLoginAt: p.datetime().nullable(),
  },
});

export class User extends UserSchema.class {}
UserSchema.setClass(User);
