import type { Workflow } from '@svc/protocol';

/** The built app's address: the capability link (no session needed), else what the worker reported. */
export const appLinkOf = (workflow: Workflow): string | null => workflow.app_link ?? workflow.app_url;

/** A prominent "Open the app" link with the whole address beside it (wrapping, never clipped). */
export function AppLink({ href }: { href: string }) {
  return (
    <p className="run-app-link">
      <a className="button primary" href={href} target="_blank" rel="noopener noreferrer">
        Open the app
      </a>
      <span className="run-app-url" data-testid="app-url">
        {href}
      </span>
    </p>
  );
}
