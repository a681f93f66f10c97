import type { CredentialCipher, Sealed } from '../security/credential-cipher';

/** What binds a sealed signing secret to its endpoint: a ciphertext moved to another row fails. */
export const secretContext = (endpointId: string) => `webhook-endpoint:${endpointId}:secret`;

export interface EndpointSecretsRow {
  id: string;
  secret_ciphertext: string;
  secret_key_id: string;
  previous_secret_ciphertext: string | null;
  previous_secret_key_id: string | null;
  previous_secret_expires_at: Date | null;
}

/** D6: the secrets a delivery is signed with now, newest first (two during a rotation's overlap). */
export function signingSecrets(cipher: CredentialCipher, row: EndpointSecretsRow, now: Date = new Date()): string[] {
  const open = (sealed: Sealed) => cipher.decrypt(sealed, secretContext(row.id));
  const secrets = [open({ ciphertext: row.secret_ciphertext, keyId: row.secret_key_id })];
  if (row.previous_secret_ciphertext && row.previous_secret_key_id && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now) {
    secrets.push(open({ ciphertext: row.previous_secret_ciphertext, keyId: row.previous_secret_key_id }));
  }
  return secrets;
}
