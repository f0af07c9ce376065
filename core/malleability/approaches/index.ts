// Job-management approaches by name. A new approach is a new file and one line here.
import type { JobManagementApproach } from '../approach.js';
import { pra } from './pra.js';
import { pwa } from './pwa.js';

export const approaches: Readonly<Record<string, JobManagementApproach>> = { pra, pwa };

export function approach(name: string): JobManagementApproach | undefined {
  return Object.hasOwn(approaches, name) ? approaches[name] : undefined;
}
