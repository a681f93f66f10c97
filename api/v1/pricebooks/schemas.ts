import { z } from 'zod';
import { Timestamp } from '../../http/common-schemas';
import { Change, LabourTierInput, ProductInput, SkuInput } from '../../../domain/pricebook/change-set';
import { SETTING_NAMES } from '../../../domain/pricebook/content';

/** D21: the price book interface's shapes. The change set's own schemas are domain/pricebook/change-set.ts. */
const Decimal = z.string().regex(/^\d+(\.\d+)?$/).meta({ description: 'Exact decimal as a string' });

export const PricebookParams = z.strictObject({ id: z.uuid() });
/** A revision is named by its stamp; anything that names no revision of the book is a 404, as an unknown id is. */
export const RevisionParams = z.strictObject({ id: z.uuid(), revision: z.string().min(1).max(64).meta({ description: 'The revision stamp, as `revision` answers it (`2026-11-26T15:04:05.123Z`)' }) });

export const Settings = z.strictObject(Object.fromEntries(SETTING_NAMES.map((name) => [name, Decimal])) as Record<(typeof SETTING_NAMES)[number], typeof Decimal>).meta({ id: 'PricebookSettings' });

export const FieldChange = z
  .strictObject({
    entity: z.enum(['setting', 'sku', 'labour_tier', 'product']),
    key: z.string().meta({ description: 'The setting name, SKU code, tier code or product sku' }),
    field: z.string(),
    before: z.unknown(),
    after: z.unknown(),
  })
  .meta({ id: 'PricebookFieldChange' });

export const Revision = z
  .strictObject({
    id: z.uuid().meta({ description: 'The price book (the `pricebookId` a `/v1/quotes` request names)' }),
    revision: Timestamp.nullable().meta({ description: 'The revision stamp; null on a dry run' }),
    effective_from: Timestamp.meta({ description: 'When this revision is (or becomes) current' }),
    current: z.boolean().meta({ description: 'Whether it is the revision that prices a quote now' }),
    settings: Settings,
    skus: z.array(SkuInput.required()).meta({ description: 'Every SKU of the revision, inactive ones included' }),
    labour_tiers: z.array(LabourTierInput),
    products: z.array(ProductInput.required()),
    changes: z.array(FieldChange).optional().meta({ description: 'With `compare_to`, and on a publication: field-level changes from the other revision' }),
  })
  .meta({ id: 'PricebookRevision' });

export const RevisionSummary = z
  .strictObject({ revision: Timestamp, effective_from: Timestamp, current: z.boolean(), published_by_user_id: z.uuid().nullable() })
  .meta({ id: 'PricebookRevisionSummary' });
export const RevisionPage = z.strictObject({ data: z.array(RevisionSummary), next_cursor: z.string().nullable(), has_more: z.boolean() }).meta({ id: 'PricebookRevisionPage' });
export const RevisionPageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(512).optional(),
});
export const CompareQuery = z.strictObject({ compare_to: Timestamp.optional().meta({ description: 'Another revision: adds `changes` from it to this one' }) });

export const PublishBody = z
  .strictObject({
    base_revision: Timestamp.meta({ description: 'The newest revision (the current one, or a scheduled one when one is pending): else 409' }),
    changes: z.array(Change).min(1).max(5_000),
    effective_from: Timestamp.optional().meta({ description: 'Omitted: current at once. In the future: current at that instant' }),
    dry_run: z.boolean().default(false),
  })
  .meta({ id: 'PricebookPublishRequest' });

/** A query flag: the text `true` or `false`, defaulting to `fallback` (a string, as the schema's type is). */
const booleanText = (fallback: 'true' | 'false') => z.enum(['true', 'false']).default(fallback).transform((v) => v === 'true');
export const ImportQuery = z.strictObject({
  dry_run: booleanText('true').meta({ description: 'Defaults to true: validate and answer a result per row, write nothing' }),
  base_revision: Timestamp.optional().meta({ description: 'When given, 409 unless it is the newest revision' }),
  effective_from: Timestamp.optional(),
});
export const ExportQuery = z.strictObject({ revision: Timestamp.optional().meta({ description: 'Omitted: the current revision' }) });

export const RowResult = z
  .strictObject({
    row: z.number().int().meta({ description: 'The line of the file, the header being 1' }),
    code: z.string().nullable(),
    result: z.enum(['created', 'updated', 'unchanged', 'refused']),
    errors: z.record(z.string(), z.string()).optional().meta({ description: 'Why the row was refused, by column' }),
  })
  .meta({ id: 'PricebookImportRow' });
export const ImportResult = z
  .strictObject({
    dry_run: z.boolean(),
    summary: z.strictObject({ rows: z.number().int(), created: z.number().int(), updated: z.number().int(), unchanged: z.number().int(), refused: z.number().int() }),
    results: z.array(RowResult),
    revision: Revision.nullable().meta({ description: 'The revision published (201), or that would be (dry run); null when the file changes nothing or a row is refused' }),
  })
  .meta({ id: 'PricebookImportResult' });
