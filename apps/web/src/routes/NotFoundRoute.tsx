import { Link } from 'react-router';
import { useDocumentTitle } from '../lib/document-title';

export function NotFoundRoute() {
  useDocumentTitle('Page not found');
  return (
    <div className="card">
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        <Link to="/">Back to your projects</Link>
      </p>
    </div>
  );
}
