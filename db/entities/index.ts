import { Organization } from './organization';
import { User } from './user';

export const entities = [Organization, User];
export { Organization, User };
