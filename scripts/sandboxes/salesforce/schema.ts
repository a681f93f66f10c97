// Field metadata for the sObjects the fake models (Opportunity, Account) plus configurable custom
// fields. It drives write validation (unknown, read-only, required, type, length, restricted
// picklist), external-id upserts, describe and SOQL field checks.

export type FieldType =
  | 'id'
  | 'string'
  | 'textarea'
  | 'picklist'
  | 'date'
  | 'datetime'
  | 'currency'
  | 'percent'
  | 'double'
  | 'boolean'
  | 'reference'
  | 'email'
  | 'phone'
  | 'url';

export interface FieldDef {
  name: string;
  type: FieldType;
  label?: string;
  length?: number;
  /** Writable on insert / update. System and formula fields are neither. */
  createable?: boolean;
  updateable?: boolean;
  /** Must be non-null on insert (shown as "Required fields are missing"). */
  required?: boolean;
  externalId?: boolean;
  unique?: boolean;
  caseSensitive?: boolean;
  picklistValues?: readonly string[];
  restrictedPicklist?: boolean;
  referenceTo?: string;
  precision?: number;
  scale?: number;
}

export interface SObjectDef {
  name: string;
  label: string;
  keyPrefix: string;
  fields: FieldDef[];
}

export interface StageInfo {
  probability: number;
  forecastCategory: 'Pipeline' | 'BestCase' | 'Commit' | 'Omitted' | 'Closed';
  closed: boolean;
  won: boolean;
}

export const OPPORTUNITY_STAGES: Readonly<Record<string, StageInfo>> = {
  Prospecting: { probability: 10, forecastCategory: 'Pipeline', closed: false, won: false },
  Qualification: { probability: 10, forecastCategory: 'Pipeline', closed: false, won: false },
  'Needs Analysis': { probability: 20, forecastCategory: 'Pipeline', closed: false, won: false },
  'Value Proposition': { probability: 50, forecastCategory: 'Pipeline', closed: false, won: false },
  'Id. Decision Makers': { probability: 60, forecastCategory: 'Pipeline', closed: false, won: false },
  'Perception Analysis': { probability: 70, forecastCategory: 'Pipeline', closed: false, won: false },
  'Proposal/Price Quote': { probability: 75, forecastCategory: 'Pipeline', closed: false, won: false },
  'Negotiation/Review': { probability: 90, forecastCategory: 'Pipeline', closed: false, won: false },
  'Closed Won': { probability: 100, forecastCategory: 'Closed', closed: true, won: true },
  'Closed Lost': { probability: 0, forecastCategory: 'Omitted', closed: true, won: false },
};

const system = (name: string, type: FieldType, referenceTo?: string): FieldDef => ({
  name,
  type,
  createable: false,
  updateable: false,
  ...(referenceTo ? { referenceTo } : {}),
});

const auditFields: FieldDef[] = [
  { name: 'Id', type: 'id', createable: false, updateable: false },
  system('IsDeleted', 'boolean'),
  system('CreatedDate', 'datetime'),
  system('CreatedById', 'reference', 'User'),
  system('LastModifiedDate', 'datetime'),
  system('LastModifiedById', 'reference', 'User'),
  system('SystemModstamp', 'datetime'),
  { name: 'OwnerId', type: 'reference', referenceTo: 'User', createable: true, updateable: true },
];

const w = (f: FieldDef): FieldDef => ({ createable: true, updateable: true, ...f });

export function standardObjects(): SObjectDef[] {
  return [
    {
      name: 'Opportunity',
      label: 'Opportunity',
      keyPrefix: '006',
      fields: [
        ...auditFields,
        w({ name: 'AccountId', type: 'reference', referenceTo: 'Account' }),
        w({ name: 'Name', type: 'string', length: 120, required: true }),
        w({ name: 'Description', type: 'textarea', length: 32000 }),
        w({ name: 'StageName', type: 'picklist', required: true, picklistValues: Object.keys(OPPORTUNITY_STAGES), restrictedPicklist: true, length: 255 }),
        w({ name: 'Amount', type: 'currency', precision: 18, scale: 2 }),
        w({ name: 'Probability', type: 'percent', precision: 3, scale: 0 }),
        w({ name: 'CloseDate', type: 'date', required: true }),
        w({ name: 'Type', type: 'picklist', picklistValues: ['Existing Customer - Upgrade', 'Existing Customer - Replacement', 'Existing Customer - Downgrade', 'New Customer'], length: 255 }),
        w({ name: 'NextStep', type: 'string', length: 255 }),
        w({ name: 'LeadSource', type: 'picklist', picklistValues: ['Web', 'Phone Inquiry', 'Partner Referral', 'Purchased List', 'Other'], length: 255 }),
        system('IsClosed', 'boolean'),
        system('IsWon', 'boolean'),
        w({ name: 'ForecastCategoryName', type: 'picklist', picklistValues: ['Omitted', 'Pipeline', 'Best Case', 'Commit', 'Closed'], restrictedPicklist: true, length: 255 }),
      ],
    },
    {
      name: 'Account',
      label: 'Account',
      keyPrefix: '001',
      fields: [
        ...auditFields,
        w({ name: 'Name', type: 'string', length: 255, required: true }),
        w({ name: 'Phone', type: 'phone', length: 40 }),
        w({ name: 'Website', type: 'url', length: 255 }),
        w({ name: 'BillingStreet', type: 'textarea', length: 255 }),
        w({ name: 'BillingCity', type: 'string', length: 40 }),
        w({ name: 'BillingState', type: 'string', length: 80 }),
        w({ name: 'BillingPostalCode', type: 'string', length: 20 }),
        w({ name: 'BillingCountry', type: 'string', length: 80 }),
        w({ name: 'Description', type: 'textarea', length: 32000 }),
      ],
    },
  ];
}

export type CustomFieldSpec = Omit<FieldDef, 'createable' | 'updateable'>;

export const DEFAULT_CUSTOM_FIELDS: Readonly<Record<string, readonly CustomFieldSpec[]>> = {
  Opportunity: [{ name: 'Quote_Id__c', type: 'string', length: 64, externalId: true, unique: true, label: 'Quote Id' }],
};

export function buildSchema(custom: Readonly<Record<string, readonly CustomFieldSpec[]>>): Map<string, SObjectDef> {
  const out = new Map<string, SObjectDef>();
  for (const def of standardObjects()) {
    for (const f of custom[def.name] ?? []) {
      if (!f.name.endsWith('__c')) throw new Error(`custom field ${f.name} must end with __c`);
      def.fields.push({ createable: true, updateable: true, ...f });
    }
    out.set(def.name.toLowerCase(), def);
  }
  return out;
}

export function fieldOf(def: SObjectDef, name: string): FieldDef | undefined {
  const lower = name.toLowerCase();
  return def.fields.find((f) => f.name.toLowerCase() === lower);
}
