import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { formatBytes, formatTime } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { fileUrl, listFiles } from './api';

/** Breadcrumb parts of a workspace path: [['', 'workspace'], ['src', 'src'], ['src/app', 'app']]. */
export function pathCrumbs(path: string): [path: string, name: string][] {
  const parts = path.split('/').filter(Boolean);
  return [['', 'workspace'], ...parts.map((name, i): [string, string] => [parts.slice(0, i + 1).join('/'), name])];
}

/** The workflow's workspace: folders open in place, files open in a new tab (.md rendered). */
export function FilesBrowser({ workflowId }: { workflowId: string }) {
  const [path, setPath] = useState('');
  const files = useQuery({ queryKey: queryKeys.files(workflowId, path), queryFn: () => listFiles(workflowId, path) });
  const entries = [...(files.data ?? [])].sort((a, b) =>
    a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1,
  );
  return (
    <div className="files">
      <nav aria-label="Folder" className="crumbs">
        {pathCrumbs(path).map(([crumbPath, name], i, all) =>
          i === all.length - 1 ? (
            <span key={crumbPath} aria-current="location">
              {name}
            </span>
          ) : (
            <span key={crumbPath}>
              <button type="button" className="link-button" onClick={() => setPath(crumbPath)}>
                {name}
              </button>
              <span aria-hidden="true"> / </span>
            </span>
          ),
        )}
      </nav>
      {files.isPending && <Loading what="files" />}
      <ErrorNote error={files.error} />
      {files.isSuccess && entries.length === 0 && <Empty>This folder is empty.</Empty>}
      {entries.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.path}>
                <td>
                  {entry.type === 'dir' ? (
                    <button type="button" className="link-button" onClick={() => setPath(entry.path)}>
                      📁 {entry.name}/
                    </button>
                  ) : (
                    <>
                      <a href={fileUrl(workflowId, entry.path)} target="_blank" rel="noopener noreferrer">
                        {entry.name}
                      </a>
                      {entry.name.toLowerCase().endsWith('.md') && (
                        <a
                          className="muted small raw-link"
                          href={`${fileUrl(workflowId, entry.path)}?raw`}
                          target="_blank"
                          rel="noopener noreferrer"
                          aria-label={`${entry.name} as plain text`}
                        >
                          raw
                        </a>
                      )}
                    </>
                  )}
                </td>
                <td>{entry.type === 'dir' ? '—' : formatBytes(entry.size)}</td>
                <td>{formatTime(entry.modified_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
