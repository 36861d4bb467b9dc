/** The field map the filter tests share: one column of every type. */
import { field, type FieldMap } from './index.js';

export const FIELDS: FieldMap = {
  id: field.string('id'),
  name: field.string('name'),
  externalId: field.string('external_id', { nullable: true }),
  cost: field.number('cost'),
  isAdmin: field.bool('is_admin'),
  createdAt: field.datetime('created_at'),
  roleAttributes: field.set('role_attributes'),
  tags: field.map('tags'),
};
