import { Link } from 'react-router';

export function NotFoundRoute() {
  return (
    <div className="card">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to your projects</Link>
      </p>
    </div>
  );
}
