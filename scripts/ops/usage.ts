/**
 * What `npm run ops` says about its own command line, apart from the commands: `--help` and a bad
 * command line load nothing but this (no database driver, no Temporal client), so they answer at
 * once from the bundle (scripts/ops-bundle.mjs).
 */
export const TENANT_USAGE = [
  '       npm run ops -- tenant create --subdomain <s> --name <n> --admin-email <e> [--plan starter|growth|enterprise] [--template sandbox|empty]',
  '       npm run ops -- tenant list',
  '       npm run ops -- tenant plan <subdomain> <starter|growth|enterprise>',
  '       npm run ops -- tenant suspend <subdomain>',
  '       npm run ops -- tenant resume <subdomain>',
].join('\n');

export const USAGE = [
  'usage: npm run ops -- failed',
  '       npm run ops -- retry <quote number> <payments|accounting|crm> --tenant <subdomain>',
  '       npm run ops -- retry --change-order <change order id | CO-<job id>-<sequence>>',
  '       npm run ops -- retry --job <job id>   (a completed job\'s invoice)',
  '       npm run ops -- retry --all <payments|accounting|crm> [--tenant <subdomain>]',
  TENANT_USAGE,
].join('\n');

/** A bad command line of the repair commands: said on err, exit 2. */
export class UsageError extends Error {}

/** A bad command line of `tenant`, or an unknown workspace: said on err, exit 2. */
export class TenantUsageError extends Error {}
