import { setThemeChoice, THEME_CHOICES, useThemeChoice, type ThemeChoice } from './theme';

const LABELS: Record<ThemeChoice, string> = { system: 'System theme', light: 'Light', dark: 'Dark' };

/** Light, dark, or whatever the system prefers; remembered in this browser. */
export function ThemeToggle({ className }: { className?: string }) {
  const choice = useThemeChoice();
  return (
    <select
      aria-label="Colour theme"
      className={className}
      value={choice}
      onChange={(event) => setThemeChoice(event.target.value as ThemeChoice)}
    >
      {THEME_CHOICES.map((value) => (
        <option key={value} value={value}>
          {LABELS[value]}
        </option>
      ))}
    </select>
  );
}
