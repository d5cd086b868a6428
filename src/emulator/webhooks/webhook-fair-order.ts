/**
 * The order in which the dispatcher gives endpoints their turns: round-robin across
 * organizations first, then across each organization's endpoints, starting one place further
 * at every look at the queue, so no tenant and no endpoint is always first. Pure; nothing held.
 */
import type { DueEndpoint } from './webhook-delivery-repo.js';

/**
 * The endpoint ids of `due` interleaved by organization (one endpoint of each organization,
 * then the next of each, ...), organizations and each one's endpoints rotated by `turn`.
 */
export function fairOrder(due: readonly DueEndpoint[], turn: number): string[] {
  const byOrganization = new Map<string, string[]>();
  for (const { id, organizationId } of due) {
    const list = byOrganization.get(organizationId);
    if (list) list.push(id);
    else byOrganization.set(organizationId, [id]);
  }
  const organizations = rotate([...byOrganization.keys()].sort(), turn).map((org) => {
    const ids = byOrganization.get(org) ?? [];
    return rotate(ids, turn);
  });
  const order: string[] = [];
  const longest = Math.max(0, ...organizations.map((ids) => ids.length));
  for (let i = 0; i < longest; i += 1)
    for (const ids of organizations) {
      const id = ids[i];
      if (id !== undefined) order.push(id);
    }
  return order;
}

function rotate<T>(items: readonly T[], turn: number): T[] {
  if (items.length === 0) return [];
  const start = turn % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
