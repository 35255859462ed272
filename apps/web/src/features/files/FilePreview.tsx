import { useEffect, useMemo, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { FileEntry } from '@svc/protocol';
import { Markdown } from '../../components/Markdown';
import { ErrorNote, Loading } from '../../components/Feedback';
import { formatBytes } from '../../lib/format';
import { fileUrl } from '../workflow/api';
import { getFileText } from './api';
import { looksBinary, previewKind } from './file-kind';
import { highlightCode, languageFor } from './highlight';

function CodeView({ text, path }: { text: string; path: string }) {
  const language = languageFor(path);
  const html = useMemo(() => highlightCode(text, language), [text, language]);
  return (
    <pre className="file-code hljs" data-language={language ?? 'plaintext'}>
      <code dangerouslySetInnerHTML={{ __html: html }} />
    </pre>
  );
}

function TextPreview({ workflowId, file, markdown }: { workflowId: string; file: FileEntry; markdown: boolean }) {
  const text = useQuery({
    queryKey: ['workflow', workflowId, 'file-text', file.path, file.modified_at],
    queryFn: () => getFileText(workflowId, file.path),
  });
  if (text.isPending) return <Loading what={file.name} />;
  if (text.error) return <ErrorNote error={text.error} />;
  if (looksBinary(text.data)) return <p className="muted">A binary file: open or download it instead.</p>;
  return markdown ? (
    <Markdown source={text.data} className="file-markdown" />
  ) : (
    <CodeView text={text.data} path={file.path} />
  );
}

/** A workspace file shown in the page: highlighted code, rendered markdown or the image itself. */
export function FilePreview({
  workflowId,
  file,
  onClose,
}: {
  workflowId: string;
  file: FileEntry;
  onClose: () => void;
}) {
  const kind = previewKind(file.path, file.size);
  const url = fileUrl(workflowId, file.path);
  const heading = useRef<HTMLHeadingElement>(null);
  // the preview opens below the list: take the reader (and keyboard focus) there
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView?.({ block: 'nearest' });
  }, [file.path]);
  return (
    <section className="file-preview" aria-labelledby="file-preview-heading">
      <div className="file-preview-head">
        <h3 id="file-preview-heading" ref={heading} tabIndex={-1}>
          {file.path}
        </h3>
        <span className="muted small">{formatBytes(file.size)}</span>
        <a href={url} target="_blank" rel="noopener noreferrer">
          Open in a new tab
        </a>
        <a href={url} download={file.name}>
          Download
        </a>
        <button type="button" className="link-button" onClick={onClose}>
          Close preview
        </button>
      </div>
      {kind === 'image' && <img className="file-image" src={url} alt={file.name} />}
      {kind === 'markdown' && <TextPreview workflowId={workflowId} file={file} markdown />}
      {kind === 'text' && <TextPreview workflowId={workflowId} file={file} markdown={false} />}
      {kind === 'none' && <p className="muted">No preview for this file: open or download it.</p>}
    </section>
  );
}
