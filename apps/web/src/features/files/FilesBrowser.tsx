import { useState, type MouseEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { FileEntry } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { formatBytes } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { formatClock, formatFullTime } from '../log/format-time';
import { fileUrl, listFiles } from '../workflow/api';
import { archiveUrl } from './api';
import { DiffView } from './DiffView';
import { FilePreview } from './FilePreview';
import { UploadForm } from './UploadForm';
import './files.css';
import { BranchDiff } from '../repositories/BranchDiff';
import { workflowRepository } from '../repositories/api';

/** Breadcrumb parts of a workspace path: [['', 'workspace'], ['src', 'src'], ['src/app', 'app']]. */
export function pathCrumbs(path: string): [path: string, name: string][] {
  const parts = path.split('/').filter(Boolean);
  return [['', 'workspace'], ...parts.map((name, i): [string, string] => [parts.slice(0, i + 1).join('/'), name])];
}

/** A plain click previews in the page; a click with a modifier (new tab, download) is left to the browser. */
const isPlainClick = (event: MouseEvent) =>
  event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

function Crumbs({ path, onOpen }: { path: string; onOpen: (path: string) => void }) {
  return (
    <nav aria-label="Folder" className="crumbs">
      {pathCrumbs(path).map(([crumbPath, name], i, all) =>
        i === all.length - 1 ? (
          <span key={crumbPath} aria-current="location">
            {name}
          </span>
        ) : (
          <span key={crumbPath}>
            <button type="button" className="link-button" onClick={() => onOpen(crumbPath)}>
              {name}
            </button>
            <span aria-hidden="true"> / </span>
          </span>
        ),
      )}
    </nav>
  );
}

function Workspace({ workflowId }: { workflowId: string }) {
  const [path, setPath] = useState('');
  const [preview, setPreview] = useState<FileEntry | null>(null);
  const files = useQuery({ queryKey: queryKeys.files(workflowId, path), queryFn: () => listFiles(workflowId, path) });
  const entries = [...(files.data ?? [])].sort((a, b) =>
    a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1,
  );
  // a preview follows the listing: a newer version of the file shows once the list reloads
  const previewed = preview && (entries.find((e) => e.path === preview.path) ?? preview);
  const open = (dir: string) => {
    setPath(dir);
    setPreview(null);
  };
  return (
    <>
      <Crumbs path={path} onOpen={open} />
      {files.isPending && <Loading what="files" />}
      <ErrorNote error={files.error} />
      {files.isSuccess && entries.length === 0 && <Empty>This folder is empty.</Empty>}
      {entries.length > 0 && (
        <table className="table files-table">
          <caption className="visually-hidden">Files in {path === '' ? 'the workspace' : path}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col" className="files-modified">
                Modified
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.path} aria-current={previewed?.path === entry.path ? 'true' : undefined}>
                <td className="files-name">
                  {entry.type === 'dir' ? (
                    <button type="button" className="link-button" onClick={() => open(entry.path)}>
                      📁 {entry.name}/
                    </button>
                  ) : (
                    <>
                      <a
                        href={fileUrl(workflowId, entry.path)}
                        target="_blank"
                        rel="noopener noreferrer"
                        onClick={(event) => {
                          if (!isPlainClick(event)) return;
                          event.preventDefault();
                          setPreview(entry);
                        }}
                      >
                        {entry.name}
                      </a>
                      {entry.name.toLowerCase().endsWith('.md') && (
                        <a
                          className="muted small raw-link"
                          href={`${fileUrl(workflowId, entry.path)}?raw`}
                          target="_blank"
                          rel="noopener noreferrer"
                        >
                          raw<span className="visually-hidden"> text of {entry.name}</span>
                        </a>
                      )}
                    </>
                  )}
                </td>
                <td>{entry.type === 'dir' ? '—' : formatBytes(entry.size)}</td>
                <td className="files-modified">
                  <time dateTime={entry.modified_at} title={formatFullTime(entry.modified_at)}>
                    {formatClock(entry.modified_at)}
                  </time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <UploadForm workflowId={workflowId} dir={path} />
      {previewed && <FilePreview workflowId={workflowId} file={previewed} onClose={() => setPreview(null)} />}
    </>
  );
}

/**
 * The workflow's workspace: folders open in place, a file previews in the page (a modified click opens
 * it in a new tab), the changes each step made, upload into the folder shown, and the whole workspace
 * as one archive.
 */
export function FilesBrowser({ workflowId }: { workflowId: string }) {
  const [view, setView] = useState<'workspace' | 'changes' | 'branch'>('workspace');
  // A run in a repository also shows its branch's diff against the base (404: it has none).
  const repository = useQuery({
    queryKey: queryKeys.workflowRepository(workflowId),
    queryFn: () => workflowRepository(workflowId),
    retry: false,
  });
  return (
    <div className="files">
      <div className="files-toolbar">
        <div role="group" aria-label="Files view" className="files-views">
          <button type="button" aria-pressed={view === 'workspace'} onClick={() => setView('workspace')}>
            Workspace
          </button>
          <button type="button" aria-pressed={view === 'changes'} onClick={() => setView('changes')}>
            Changes by step
          </button>
          {repository.isSuccess && (
            <button type="button" aria-pressed={view === 'branch'} onClick={() => setView('branch')}>
              Branch diff
            </button>
          )}
        </div>
        <a className="files-archive" href={archiveUrl(workflowId)} download>
          Download the workspace (.tar.gz)
        </a>
      </div>
      {view === 'workspace' && <Workspace workflowId={workflowId} />}
      {view === 'changes' && <DiffView workflowId={workflowId} />}
      {view === 'branch' && <BranchDiff workflowId={workflowId} />}
    </div>
  );
}
