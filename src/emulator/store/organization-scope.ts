/**
 * The WHERE clause of a read limited to one organization, or to none for a reader who sees
 * every organization (the sandbox's local developer), with more conditions. Each domain's
 * repository builds its own SQL with it; pure string work, no database.
 */

/** A WHERE clause ('' when there is no condition) and its parameters, in order. */
export interface ScopedWhere {
  clause: string;
  params: string[];
}

/** `column = ?` for `organizationId` (none when undefined), then `where`, joined by AND. */
export function organizationScope(
  column: string,
  organizationId: string | undefined,
  where: readonly string[] = [],
): ScopedWhere {
  const conditions = organizationId === undefined ? [...where] : [`${column} = ?`, ...where];
  return {
    clause: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`,
    params: organizationId === undefined ? [] : [organizationId],
  };
}
