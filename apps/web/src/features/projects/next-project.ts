/**
 * The project to select after deleting `deletedId` (spec rule 14): the one after it in the list,
 * or the one before when it was last, or null when it was the only one.
 */
export function nextProjectAfterDelete(projects: readonly { id: string }[], deletedId: string): string | null {
  const index = projects.findIndex((p) => p.id === deletedId);
  const rest = projects.filter((p) => p.id !== deletedId);
  if (rest.length === 0) return null;
  if (index === -1) return rest[0]!.id;
  return (rest[index] ?? rest[index - 1] ?? rest[0]!).id;
}
