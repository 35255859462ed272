/** `?step=N` in the run page's URL: the step the log is filtered to, counted from 1 as the page shows it. */
export const stepParam = (index: number): string => String(index + 1);

/** The 0-based step index `?step=` names, or null when absent or not a step of the plan (yet). */
export function stepFromParam(value: string | null, steps: number): number | null {
  if (value === null || !/^[1-9]\d{0,5}$/.test(value)) return null;
  const index = Number(value) - 1;
  // Before the plan has loaded every step number is kept, so a shared link survives the load.
  return steps === 0 || index < steps ? index : null;
}
